package target

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
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if _, err = DetectRuntime(pid); err != nil {
				break
			}
			if i == 0 {
				time.Sleep(10 * time.Millisecond) // the first child: seen once it is a zombie
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
