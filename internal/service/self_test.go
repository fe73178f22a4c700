package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"perflab/internal/labtest"
	"strings"
	"testing"
	"time"
)

// TestCheckNotPerflab refuses perflab's own process and its ancestors
// (the shell that ran it, PID 1), and takes a process it started.
func TestCheckNotPerflab(t *testing.T) {
	for _, pid := range []int{os.Getpid(), os.Getppid(), 1} {
		err := CheckNotPerflab(pid)
		if !errors.Is(err, ErrPerflab) {
			t.Errorf("pid %d: %v, want it refused as perflab or its ancestor", pid, err)
		}
	}
	if err := CheckNotPerflab(os.Getppid()); err == nil || !strings.Contains(err.Error(), "ancestor") {
		t.Errorf("parent: %v, want it named an ancestor", err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := CheckNotPerflab(cmd.Process.Pid); err != nil {
		t.Errorf("a child of perflab: %v, want it taken", err)
	}
}

// TestDetectRuntimeZombie names a process that exited unreaped a zombie,
// not a kernel thread.
func TestDetectRuntimeZombie(t *testing.T) {
	// Looked at without a pause, some of the children are caught while
	// they exit: their memory gone, their state not yet Z. Those too are
	// zombies, not kernel threads.
	for i := range 20 {
		cmd := exec.Command("true")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		var err error
		detected := func() bool { _, err = DetectRuntime(pid); return err != nil }
		if i == 0 {
			// The first child is looked at once its state is Z.
			labtest.Eventually(t, 10*time.Second, "true to become a zombie", func() bool { return procState(pid) == "Z" })
			detected()
		} else {
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !detected(); {
			}
		}
		cmd.Wait()
		if !errors.Is(err, ErrZombie) || !strings.Contains(err.Error(), "zombie") {
			t.Fatalf("an unreaped child: %v, want it called a zombie", err)
		}
	}
}

// TestCheckCgroupHoldingPerflab refuses the cgroup perflab itself runs in:
// its CPU time would count the load generator's.
func TestCheckCgroupHoldingPerflab(t *testing.T) {
	l := detectLayout()
	v1, v2, err := procCgroups(os.Getpid())
	if err != nil || l.none() {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", fmt.Sprintf("no cgroups: %v", err)))
	}
	path := v2
	if l.v2 == nil {
		path = v1["cpuacct"]
	}
	if err := CheckCgroup(path); !errors.Is(err, ErrPerflab) {
		t.Errorf("perflab's own cgroup %s: %v, want it refused", path, err)
	}
}

// procState is the state letter of /proc/PID/stat, or "" when it cannot
// be read.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 || len(s) < i+3 {
		return ""
	}
	return s[i+2 : i+3]
}
