package funcname

import (
	"strings"
	"testing"
)

func TestLabel(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"initialize", "/srv/rbhot/server.rb", "initialize (rbhot/server.rb)"},
		{"hot_checksum", "server.py", "hot_checksum (server.py)"},
		{"main.search", "/src/app/main.go", "main.search"},
		{"[c function]", "", "[c function]"},
	} {
		if got := Label(c.name, c.file); got != c.want {
			t.Errorf("Label(%q, %q) = %q; want %q", c.name, c.file, got, c.want)
		}
	}
}

func TestShort(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"github.com/acme/api.(*Cart).Total", "/src/api/cart.go", "(*Cart).Total"},
		{"main.convertKey", "/src/main.go", "convertKey"},
		{"Mash#initialize", "/gems/hashie/mash.rb", "Mash#initialize"},
		{"block in setup", "", "block in setup"},
		{"fetch_quote", "<frozen importlib._bootstrap>", "fetch_quote"},
	} {
		if got := Short(c.name, c.file); got != c.want {
			t.Errorf("Short(%q, %q) = %q; want %q", c.name, c.file, got, c.want)
		}
	}
}

func TestInterpreted(t *testing.T) {
	for file, want := range map[string]bool{
		"/srv/app.py": true, "server.rb": true, "config.ru": true, "index.mjs": true, "<built-in>": true,
		"node:internal/timers": true, "/src/main.go": false, "": false, "/usr/lib/libc.so.6": false,
	} {
		if got := Interpreted(file); got != want {
			t.Errorf("Interpreted(%q) = %t; want %t", file, got, want)
		}
	}
}

func TestLineLabel(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		line       int64
		want       string
	}{
		{"MultipartDecoder.next_event", "/usr/lib/python3/site-packages/werkzeug/sansio/multipart.py", 163, "MultipartDecoder.next_event (sansio/multipart.py:163)"},
		{"MultipartDecoder.next_event", "/usr/lib/python3/site-packages/werkzeug/sansio/multipart.py", 0, "MultipartDecoder.next_event (sansio/multipart.py)"},
		{"google.golang.org/protobuf/proto.Marshal", "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.12/proto/encode.go", 110, "google.golang.org/protobuf/proto.Marshal (encode.go:110)"},
		{"strings.ToLower", "", 12, "strings.ToLower"},
	} {
		if got := LineLabel(tc.name, tc.file, tc.line); got != tc.want {
			t.Errorf("LineLabel(%q, %q, %d) = %q; want %q", tc.name, tc.file, tc.line, got, tc.want)
		}
	}
	if strings.Contains(LineLabel("a", "/x/y.py", 3), "::") {
		t.Error("a line label holds two colons")
	}
}
