package profiling

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"perflab/internal/target"
)

// spin is where the test burns CPU.
var spin int

// TestUnsampledStartOfWorkersOnly: a worker (a process running an
// executable the service ran at the first look) started in the window
// has the CPU it used before it was sampled kept as start-up; a process
// of another program, or one seen as the window began, has not.
func TestUnsampledStartOfWorkersOnly(t *testing.T) {
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skipf("no /proc/self/exe: %v", err)
	}
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	worker, early := os.Getpid(), os.Getppid()
	// The worker's start-up: at least two clock ticks of CPU.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if cpu, _ := target.ProcessCPUSeconds(worker); cpu >= 0.02 {
			break
		}
		for i := 0; i < 1e6; i++ {
			spin++
		}
	}
	now := time.Now()
	ts := &treeSampler{begun: now.Add(-time.Second), end: now.Add(time.Minute), unsampled: map[int]float64{},
		ownExes: map[string]bool{self: true},
		seenAt:  map[int]time.Time{worker: now, other.Process.Pid: now, early: now.Add(-time.Second)}}
	ts.sampledFrom([]target.ProcessInfo{{PID: worker, Exe: self}, {PID: other.Process.Pid, Exe: "/usr/bin/sleep"}, {PID: early, Exe: self}})
	cpu, n := ts.unsampledStart()
	if want, _ := target.ProcessCPUSeconds(worker); n != 1 || cpu <= 0 || cpu > want {
		t.Errorf("start-up of %d process(es), %.3f CPU-s; want the one worker's, at most its %.3f", n, cpu, want)
	}
	ts.sampledFrom([]target.ProcessInfo{{PID: worker, Exe: self}})
	if again, n := ts.unsampledStart(); n != 1 || again != cpu {
		t.Errorf("after a second look: %d process(es), %.3f CPU-s; want the first reading kept (%.3f)", n, again, cpu)
	}
}
