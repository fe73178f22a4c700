package target

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCleanupStale makes a group named after a perflab that is gone and one
// named after this (running) process: only the first is removed.
func TestCleanupStale(t *testing.T) {
	l := detectLayout()
	dirs := l.selfDirs()
	parent, ok := dirs["cpu"]
	if !ok {
		t.Skip("no cgroup v1 cpu hierarchy here")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	staleDir := filepath.Join(parent, "perflab-old-"+strconv.Itoa(dead.Process.Pid)+"-deadbeef")
	liveDir := filepath.Join(parent, "perflab-live-"+strconv.Itoa(os.Getpid())+"-cafecafe")
	for _, d := range []string{staleDir, liveDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			if isPermission(err) {
				t.Skipf("cannot create cgroups: %v", err)
			}
			t.Fatal(err)
		}
		defer os.Remove(d)
	}
	if err := cleanupStale(l); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staleDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale group %s not removed", staleDir)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("group of a running perflab removed: %v", err)
	}
}

func TestStaleName(t *testing.T) {
	for name, want := range map[string]bool{
		"perflab-x-" + strconv.Itoa(os.Getpid()) + "-ab": false,
		"perflab-a-b-c-999999999-ab":                     true,
		"perflab-x-notapid-ab":                           false,
		"other-x-999999999-ab":                           false,
		"perflab-999999999":                              false,
	} {
		if got := stale(name); got != want {
			t.Errorf("stale(%q) = %v; want %v", name, got, want)
		}
	}
}
