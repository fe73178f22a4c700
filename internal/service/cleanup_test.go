package service

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
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

// TestKillNineLeavesNothing: a perflab killed with SIGKILL cannot stop its
// service; the service's main process dies with it (Pdeathsig), but a
// daemon that left the process group survives, in the group. The next
// perflab's CleanupStale kills it and removes the group.
func TestKillNineLeavesNothing(t *testing.T) {
	if detectLayout().none() {
		t.Skip("no cgroup hierarchy")
	}
	marker := "perflab-test-daemon-" + strconv.Itoa(os.Getpid())
	cmd, env := helperCmd(t, "perflab", marker)
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Env = append(os.Environ(), env...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
		for _, pid := range findProcs(marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "launched") {
		t.Fatalf("helper perflab: %q", line)
	}
	if strings.Contains(line, "proc") {
		t.Skipf("helper perflab had no cgroup (%s)", strings.TrimSpace(line))
	}
	labtest.Eventually(t, 5*time.Second, "the daemon to start", func() bool { return len(findProcs(marker)) > 0 })
	// The service's processes: the helper's descendants but the daemon.
	var w procWalker
	var service []int
	for _, pid := range w.tree(c.Process.Pid, nil)[1:] {
		if !slices.Contains(findProcs(marker), pid) {
			service = append(service, pid)
		}
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	labtest.Eventually(t, 10*time.Second, fmt.Sprintf("the service %v to die with perflab", service), func() bool {
		return !slices.ContainsFunc(service, func(pid int) bool { st := procState(pid); return st != "" && st != "Z" })
	})
	if len(findProcs(marker)) == 0 {
		t.Fatal("the daemon died with perflab: this test needs one that escapes")
	}
	if err := CleanupStale(); err != nil {
		t.Fatalf("CleanupStale: %v", err)
	}
	if left := findProcs(marker); len(left) > 0 {
		t.Errorf("the daemon %v survives the next perflab's cleanup", left)
	}
	suffix := "-" + strconv.Itoa(c.Process.Pid) + "-"
	for _, dir := range staleGroupDirs() {
		if strings.Contains(filepath.Base(dir), suffix) {
			t.Errorf("the killed perflab's group %s is left", dir)
		}
	}
}

// findProcs lists the processes whose command line starts with name.
func findProcs(name string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(b), name+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}

// staleGroupDirs lists every perflab group where cleanupStale looks.
func staleGroupDirs() []string {
	var out []string
	for _, p := range groupParents(detectLayout()) {
		m, _ := filepath.Glob(filepath.Join(p, "perflab-*"))
		out = append(out, m...)
	}
	return out
}
