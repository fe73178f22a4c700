package service

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// testGroup creates an empty cgroup under root for the test.
func testGroup(t *testing.T, root string) string {
	t.Helper()
	labtest.RequireRoot(t, "creating cgroups")
	dir := filepath.Join(root, "perflab-attachtest-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", fmt.Sprintf("cannot create a cgroup in %s: %v", root, err)))
	}
	// The group can be removed once its killed processes are gone.
	t.Cleanup(func() { labtest.Until(time.Second, func() bool { return os.Remove(dir) == nil }) })
	return dir
}

func TestAttachCgroup(t *testing.T) {
	for _, tc := range []struct{ name, root, source string }{
		{"v1", "/sys/fs/cgroup/cpuacct", "cgroup-v1"},
		{"v2", "/sys/fs/cgroup/unified", "cgroup-v2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !isDir(tc.root) {
				t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", fmt.Sprintf("no cgroup tree at %s", tc.root)))
			}
			dir := testGroup(t, tc.root)
			if _, err := AttachCgroup(dir); err == nil || !strings.Contains(err.Error(), "has no processes") {
				t.Errorf("empty group: %v, want a no-processes error", err)
			}
			cmd := exec.Command("sleep", "30")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
				t.Fatal(err)
			}
			// By directory and by its path inside the tree.
			for _, arg := range []string{dir, strings.TrimPrefix(dir, tc.root)} {
				p, err := AttachCgroup(arg)
				if err != nil {
					t.Fatalf("AttachCgroup(%s): %v", arg, err)
				}
				if p.PID() != cmd.Process.Pid || !slices.Contains(p.PIDs(), cmd.Process.Pid) || p.Source() != tc.source {
					t.Errorf("AttachCgroup(%s): pid %d, pids %v, source %s; want %d in %s", arg, p.PID(), p.PIDs(), p.Source(), cmd.Process.Pid, tc.source)
				}
				if err := p.Stop(time.Second); err != nil {
					t.Error(err)
				}
			}
			p, err := AttachCgroup(dir)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Process.Kill()
			select {
			case <-p.Exited():
			case <-time.After(5 * time.Second):
				t.Error("Exited not closed after the group's last process died")
			}
		})
	}
}

func TestAttachCgroupMissing(t *testing.T) {
	for _, path := range []string{"/sys/fs/cgroup/no-such-group-perflab", "no-such-group-perflab", "/tmp"} {
		if _, err := AttachCgroup(path); err == nil {
			t.Errorf("AttachCgroup(%s): no error", path)
		} else {
			t.Log(err)
		}
	}
}
