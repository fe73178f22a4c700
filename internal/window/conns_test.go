package window

import "testing"

// TestChurned: connections held the same at every look are kept alive;
// new ones at every look, or none at all, are opened per request.
func TestChurned(t *testing.T) {
	listen := []uint64{1, 2}
	for _, c := range []struct {
		name  string
		lists [][]uint64
		want  bool
	}{
		{"keep-alive", [][]uint64{{1, 2, 10, 11, 12}, {1, 2, 10, 11, 12}, {1, 2, 10, 11, 12}, {1, 2, 10, 11, 12}}, false},
		{"keep-alive, one reconnect", [][]uint64{{1, 10, 11, 12}, {1, 10, 11, 13}, {1, 10, 11, 13}, {1, 10, 11, 13}}, false},
		{"a connection per request", [][]uint64{{1, 20, 21}, {1, 22, 23}, {1, 24}, {1, 25, 26}}, true},
		{"none held at a look", [][]uint64{{1, 2}, {1, 2}, {1}, {1, 2}}, true},
		{"one slow request", [][]uint64{{1, 30}, {1, 30}, {1, 30}, {1, 30}}, false},
	} {
		if got := churned(listen, c.lists); got != c.want {
			t.Errorf("%s: churned %t; want %t", c.name, got, c.want)
		}
	}
}
