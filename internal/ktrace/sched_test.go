package ktrace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func init() {
	helpers["stacksleep"] = stackSleepHelper
}

// Python services: one thread, so every off-CPU interval is the one the
// script plants (a Go service's runtime threads sleep on their own).
const (
	// pySleep forks a worker that sleeps 30 ms 20 times and prints its
	// pid and the sleeps' total (ns) as it measured them.
	pySleep = `
import os, sys, time
print("ready", flush=True)
sys.stdin.readline()
pid = os.fork()
if pid == 0:
    total = 0.0
    for _ in range(20):
        t = time.monotonic(); time.sleep(0.03); total += time.monotonic() - t
    print(os.getpid(), int(total * 1e9), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
sys.stdin.readline()
`
	// pyFutex waits 30 ms 20 times on a lock it holds (a futex wait
	// that times out) and prints the waits' total (ns).
	pyFutex = `
import sys, threading, time
lock = threading.Lock(); lock.acquire()
print("ready", flush=True)
sys.stdin.readline()
total = 0.0
for _ in range(20):
    t = time.monotonic(); lock.acquire(timeout=0.03); total += time.monotonic() - t
print(int(total * 1e9), flush=True)
sys.stdin.readline()
`
	// pySpin runs on a CPU for argv[1] seconds of wall time, then waits.
	// It reads a line first (to run once and sleep again), then spins
	// at the second.
	pySpin = `
import sys, time
print("ready", flush=True)
sys.stdin.readline()
sys.stdin.readline()
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
print("done", flush=True)
sys.stdin.readline()
`
)

// A forked worker sleeping 30 ms 20 times: 600 ms of sleep in
// clock_nanosleep, in the child (followed through the fork). What the
// worker measured around its sleeps is the sleep and the wait for a CPU
// after it, which a busy machine lengthens.
func TestSleepIsSleep(t *testing.T) {
	py, _ := startPython(t, pySleep)
	s := startSession(t, Config{PIDs: []int{py.cmd.Process.Pid}})
	py.say(t, "go")
	f := fields(py.line(t))
	child, _ := strconv.Atoi(f[0])
	slept, _ := strconv.ParseInt(f[1], 10, 64)
	waitExited(t, child)
	tot := read(t, s)
	p, ok := tot.Procs[child]
	if !ok {
		t.Fatalf("forked worker %d not measured", child)
	}
	t.Logf("worker: %+v", p)
	sleep := p.OffCPU[runfmt.ThreadSleep]
	within(t, "sleep", sleep.Time, 600*time.Millisecond, 0.15)
	within(t, "sleep and runnable", sleep.Time+p.Runnable.Time, time.Duration(slept), 0.15)
	if sleep.Count != 20 {
		t.Errorf("%d sleeps, want 20", sleep.Count)
	}
	if !hasWait(p, runfmt.ThreadSleep, "clock_nanosleep") {
		t.Errorf("no sleep in clock_nanosleep among %+v", p.Waits)
	}
}

// A lock acquired with a 30 ms timeout 20 times: 600 ms of futex waits.
// The process is added to a running session.
func TestLockWaitIsFutex(t *testing.T) {
	py, _ := startPython(t, pyFutex)
	pid := py.cmd.Process.Pid
	s := startSession(t, Config{})
	if err := s.AddPIDs(pid); err != nil {
		t.Fatal(err)
	}
	py.say(t, "go")
	waited, _ := strconv.ParseInt(py.line(t), 10, 64)
	waitAsleep(t, pid)
	p := read(t, s).Procs[pid]
	t.Logf("process: %+v", p)
	within(t, "futex", p.OffCPU[runfmt.ThreadFutex].Time, 600*time.Millisecond, 0.15)
	within(t, "futex and runnable", p.OffCPU[runfmt.ThreadFutex].Time+p.Runnable.Time, time.Duration(waited), 0.15)
	if !hasWait(p, runfmt.ThreadFutex, "futex") {
		t.Errorf("no wait in futex among %+v", p.Waits)
	}
}

func hasWait(p Proc, kind runfmt.ThreadState, name string) bool {
	for _, w := range p.Waits {
		if w.Kind == kind && w.Name == name {
			return true
		}
	}
	return false
}

// A CPU-bound process beside another spinning on the same CPU: it waits
// for the CPU about as long as it runs; both figures agree with the
// kernel's own accounting (/proc/PID/schedstat).
func TestRunnableBesideSpinner(t *testing.T) {
	cpu := runtime.NumCPU() - 1
	spinner, _ := startPython(t, pySpin, "30")
	defer func() { _ = spinner.cmd.Process.Kill() }()
	svc, _ := startPython(t, pySpin, "1")
	pid := svc.cmd.Process.Pid
	for _, p := range []int{spinner.cmd.Process.Pid, pid} {
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(p, &set); err != nil {
			t.Fatal(err)
		}
	}
	spinner.say(t, "")
	spinner.say(t, "go")
	s := startSession(t, Config{PIDs: []int{pid}})
	svc.say(t, "") // it runs and sleeps again: a first switch-out seen
	waitAsleep(t, pid)
	before, stat0 := read(t, s), schedstat(t, pid)
	svc.say(t, "go")
	if l := svc.line(t); l != "done" {
		t.Fatalf("service said %q", l)
	}
	waitAsleep(t, pid)
	stat1 := schedstat(t, pid)
	p := read(t, s).Sub(before).Procs[pid]
	t.Logf("service: on a CPU %v, runnable %v", p.OnCPU.Time, p.Runnable.Time)
	within(t, "on a CPU", p.OnCPU.Time, stat1.run-stat0.run, 0.15)
	within(t, "runnable", p.Runnable.Time, stat1.delay-stat0.delay, 0.15)
	if p.Runnable.Time < p.OnCPU.Time/4 {
		t.Errorf("runnable %v beside %v on a CPU, sharing one CPU with a spinner", p.Runnable.Time, p.OnCPU.Time)
	}
}

type sched struct{ run, delay time.Duration }

// schedstat sums the kernel's time on a CPU and waiting on a run queue
// over the threads of pid.
func schedstat(t *testing.T, pid int) sched {
	t.Helper()
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		t.Fatalf("schedstat of %d: %v", pid, err)
	}
	var s sched
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var run, delay, n int64
		if _, err := fmt.Sscan(string(b), &run, &delay, &n); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		s.run += time.Duration(run)
		s.delay += time.Duration(delay)
	}
	return s
}

// stackSleepHelper sleeps 20 ms 10 times in nanosleep, in stackSleep.
func stackSleepHelper() error {
	fmt.Println("ready")
	untilLine()
	stackSleep()
	fmt.Println("done")
	untilStdinCloses()
	return nil
}

//go:noinline
func stackSleep() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range 10 {
		ts := unix.NsecToTimespec((20 * time.Millisecond).Nanoseconds())
		_ = unix.Nanosleep(&ts, nil)
	}
}

// untilLine blocks a helper until the test writes a line.
func untilLine() {
	var b [1]byte
	for {
		if n, err := os.Stdin.Read(b[:]); err != nil || (n == 1 && b[0] == '\n') {
			return
		}
	}
}

// With Stacks, a sleep's off-CPU time carries the user stack it slept at.
// The helper is this test binary (a fixed address layout), so its frames
// resolve here.
func TestOffCPUStacks(t *testing.T) {
	svc, _ := startHelper(t, "stacksleep")
	pid := svc.cmd.Process.Pid
	s := startSession(t, Config{PIDs: []int{pid}, Stacks: true})
	svc.say(t, "")
	if l := svc.line(t); l != "done" {
		t.Fatalf("helper said %q", l)
	}
	tot := read(t, s)
	if why, off := tot.Unmeasured[Stacks]; off {
		t.Fatalf("stacks not measured: %s", why)
	}
	var found time.Duration
	for _, w := range tot.Procs[pid].Waits {
		if w.Kind != runfmt.ThreadSleep || w.Name != "nanosleep" || w.Stack < 0 {
			continue
		}
		frames, err := s.stack(w.Stack)
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range frames {
			if f := runtime.FuncForPC(uintptr(pc)); f != nil && f.Name() == "perflab/internal/ktrace.stackSleep" {
				found += w.Time
				break
			}
		}
	}
	t.Logf("nanosleep at stackSleep: %v; dropped stacks %d", found, tot.Dropped.Stacks)
	if found < 200*time.Millisecond {
		t.Errorf("nanosleep at stackSleep: %v, want its 10 sleeps of 20 ms; waits %+v", found, tot.Procs[pid].Waits)
	}
}

// waitAsleep waits (at most 10 s) until every thread of pid sleeps, so that
// its last interval on a CPU has ended and been counted.
func waitAsleep(t *testing.T, pid int) {
	t.Helper()
	labtest.Eventually(t, 10*time.Second, fmt.Sprintf("every thread of process %d to sleep", pid), func() bool {
		paths, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return false
			}
			// pid (comm) state ...: the state follows the last ')'.
			s := string(b)
			if i := strings.LastIndexByte(s, ')'); i < 0 || i+2 >= len(s) || !strings.ContainsRune("SD", rune(s[i+2])) {
				return false
			}
		}
		return len(paths) > 0
	})
}

// waitExited waits (at most 10 s) until process pid is gone or a zombie.
func waitExited(t *testing.T, pid int) {
	t.Helper()
	labtest.Eventually(t, 10*time.Second, fmt.Sprintf("process %d to exit", pid), func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		return err != nil || (i > 0 && i+2 < len(s) && s[i+2] == 'Z')
	})
}

// SchedulerOnly measures the scheduler as a full session does (the forked
// worker's 600 ms of sleep) with only the scheduler's programs attached:
// the socket measures say "not asked for", and no socket program ran.
func TestSchedulerOnly(t *testing.T) {
	py, _ := startPython(t, pySleep)
	s := startSession(t, Config{PIDs: []int{py.cmd.Process.Pid}, SchedulerOnly: true})
	py.say(t, "go")
	f := fields(py.line(t))
	child, _ := strconv.Atoi(f[0])
	waitExited(t, child)
	tot := read(t, s)
	within(t, "sleep", tot.Procs[child].OffCPU[runfmt.ThreadSleep].Time, 600*time.Millisecond, 0.15)
	for _, m := range []Measure{Requests, RequestWait, SendStalls, PeerTime, AnswerWait, OpenConnections} {
		if why := tot.Unmeasured[m]; why != "not asked for" {
			t.Errorf("%s unmeasured %q; want \"not asked for\"", m, why)
		}
	}
	for _, m := range []Measure{OnCPU, Runnable, OffCPU, Children} {
		if why, off := tot.Unmeasured[m]; off {
			t.Errorf("%s not measured: %s", m, why)
		}
	}
	for name := range tot.Programs {
		if name != "on_switch" && name != "on_fork" {
			t.Errorf("program %s loaded; want the scheduler's only", name)
		}
	}
}
