package demo

// Smoke tests of the test services with planted waits: each answers the
// same in both modes and prints what it timed of its wait when stopped.

import (
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// slowPeer starts slowpeer and returns its address (host:port).
func slowPeer(t *testing.T) string {
	t.Helper()
	s := startService(t, append([]string{serviceBinary(t, "slowpeer"), "-delay=5ms"}, freePorts...)...)
	t.Cleanup(func() { s.stop(t) })
	return strings.TrimPrefix(s.url, "http://")
}

func TestServicesWithWaits(t *testing.T) {
	peer := slowPeer(t)
	for _, tc := range []struct {
		name, path, want string
		extra            []string
	}{
		{"slowpeer", "/", "42\n", nil},
		{"downstream", "/price", "42\n", []string{"-peer", "http://" + peer + "/"}},
		{"mutex", "/count", "3\n", []string{"-hold", "1ms"}},
		{"sleepy", "/", "ok\n", nil},
		{"leak", "/event", "3\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b := bothModes(t, tc.name, tc.path, tc.extra...); string(b) != tc.want {
				t.Errorf("%s %s: %q; want %q", tc.name, tc.path, b, tc.want)
			}
		})
	}
}

func TestServicePyslow(t *testing.T) {
	python := labtest.NeedTool(t, "python3", "")
	peer := slowPeer(t)
	script, _ := filepath.Abs("../../testdata/services/pyslow/server.py")
	var bodies []string
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, python, script, "--addr", "127.0.0.1:0", "--peer", peer, "--mode", mode)
		bodies = append(bodies, string(get(t, s.url+"/quote")))
		if st := string(get(t, s.url+"/stats")); mode == "buggy" && !strings.HasPrefix(st, "1 ") {
			t.Errorf("pyslow /stats after one call: %q; want \"1 SECONDS\"", st)
		}
		s.stop(t)
	}
	if bodies[0] != "42\n" || bodies[1] != bodies[0] {
		t.Errorf("pyslow /quote: %q; want \"42\\n\" in both modes", bodies)
	}
}
