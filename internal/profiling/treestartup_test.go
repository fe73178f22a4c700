package profiling

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// startShell starts sh -c script, ended with the test.
func startShell(t *testing.T, script string) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", script+"; :") // the trailing ':' keeps sh from exec'ing its last command
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// beforeWindow is a process of the service's program started before a
// window that begins now, and that program's executable: the test's
// parent (the go command, or a shell), which started before this test.
// The window begins two clock ticks back: the kernel keeps a start to
// its 10 ms tick, and perflab counts a process started in the window's
// first tick as before it; a process started from now on is in it.
func beforeWindow(t *testing.T) (pid int, exe string, begun time.Time) {
	t.Helper()
	pid = os.Getppid()
	exe, err := service.ExeOf(pid)
	if err != nil {
		t.Skipf("no /proc/PID/exe: %v", err)
	}
	return pid, exe, time.Now().Add(-20 * time.Millisecond)
}

// TestUnsampledStartOfWorkersOnly: a worker (a process running an
// executable the service ran at the first look) started in the window
// has the CPU it used before it was sampled kept as start-up; a process
// of another program, or one started before the window, has not. A
// worker whose recorder never sampled it has its CPU kept at the
// window's end.
func TestUnsampledStartOfWorkersOnly(t *testing.T) {
	early, earlyExe, begun := beforeWindow(t)
	worker := startShell(t, "i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; sleep 30")
	other := startShell(t, "exec sleep 30")
	labtest.Eventually(t, 10*time.Second, "the worker's start-up: two clock ticks of CPU", func() bool {
		cpu, _ := service.ProcessCPUSeconds(worker)
		return cpu >= 0.02
	})
	sh, err := os.Readlink("/proc/" + strconv.Itoa(worker) + "/exe")
	if err != nil {
		t.Skipf("no /proc/PID/exe: %v", err)
	}
	own := map[string]bool{sh: true, earlyExe: true}
	procs := []service.ProcessInfo{{PID: worker, Exe: sh}, {PID: other, Exe: "/usr/bin/sleep"}, {PID: early, Exe: earlyExe}}
	ts := &treeSampler{begun: begun, end: time.Now().Add(time.Minute), unsampled: map[int]float64{}, ownExes: own}
	ts.sampledFrom(procs)
	cpu, n := ts.unsampledStart()
	if want, _ := service.ProcessCPUSeconds(worker); n != 1 || cpu <= 0 || cpu > want {
		t.Errorf("start-up of %d process(es), %.3f CPU-s; want the one worker's, at most its %.3f", n, cpu, want)
	}
	ts.sampledFrom(procs[:1])
	if again, n := ts.unsampledStart(); n != 1 || again != cpu {
		t.Errorf("after a second look: %d process(es), %.3f CPU-s; want the first reading kept (%.3f)", n, again, cpu)
	}

	ended := &treeSampler{begun: begun, end: time.Now(), unsampled: map[int]float64{}, ownExes: own,
		recs: []*recorder{{procs: procs, signals: true}, {procs: procs[:1], signals: true, ready: true}}, list: func() []int { return nil }}
	ended.sampledFrom(procs)
	if cpu, n := ended.unsampledStart(); n != 0 {
		t.Errorf("a recorder ready after the window's end kept %d process(es), %.3f CPU-s; want none", n, cpu)
	}
	ended.unsampledAtEnd()
	if cpu, n := ended.unsampledStart(); n != 1 || cpu <= 0 {
		t.Errorf("at the window's end, a worker never sampled: %d process(es), %.3f CPU-s; want the one worker's", n, cpu)
	}
}

// TestUnsampledStartOfWorkersNeverSeen: at the window's end, a worker no
// look saw (forked in the window's last moments) has all its CPU kept as
// start-up; a process seen, one of another program and one started
// before the window are not.
func TestUnsampledStartOfWorkersNeverSeen(t *testing.T) {
	early, earlyExe, begun := beforeWindow(t)
	unseen := startShell(t, "i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; sleep 30")
	seen := startShell(t, "i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; sleep 30")
	other := startShell(t, "exec sleep 30")
	labtest.Eventually(t, 10*time.Second, "the unseen worker's start-up: two clock ticks of CPU", func() bool {
		cpu, _ := service.ProcessCPUSeconds(unseen)
		return cpu >= 0.02
	})
	sh, err := service.ExeOf(unseen)
	if err != nil {
		t.Skipf("no /proc/PID/exe: %v", err)
	}
	ts := &treeSampler{begun: begun, end: time.Now(), unsampled: map[int]float64{}, ownExes: map[string]bool{sh: true, earlyExe: true},
		procs: map[int]*runfmt.ProcessProfile{seen: {PID: seen}},
		list:  func() []int { return []int{early, unseen, seen, other} }}
	ts.unsampledAtEnd()
	cpu, n := ts.unsampledStart()
	if want, _ := service.ProcessCPUSeconds(unseen); n != 1 || cpu <= 0 || cpu > want {
		t.Errorf("at the window's end: start-up of %d process(es), %.3f CPU-s; want the unseen worker's alone, at most its %.3f", n, cpu, want)
	}
	if _, ok := ts.unsampled[unseen]; !ok {
		t.Errorf("start-up kept of %v; want pid %d's", ts.unsampled, unseen)
	}
}
