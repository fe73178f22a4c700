package service

import (
	"math"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestThreadCPUSecondsToTheNanosecond: a thread that works 30 ms reads a
// use of about that (the kernel folds a running thread's time in at its
// ticks), not in the whole 10 ms clock ticks /proc's stat counts.
func TestThreadCPUSecondsToTheNanosecond(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, tid := os.Getpid(), unix.Gettid()
	before, err := ThreadCPUSeconds(pid, tid)
	if err != nil {
		t.Fatal(err)
	}
	var ts unix.Timespec
	thread := func() time.Duration {
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		return time.Duration(ts.Nano())
	}
	for start := thread(); thread()-start < 30*time.Millisecond; {
	}
	after, err := ThreadCPUSeconds(pid, tid)
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 0.015 || d > 1 || math.Mod(d*1e9, 1e7) == 0 {
		t.Errorf("a thread's 30 ms of work read %.9f s", d)
	}
	if _, err := ThreadCPUSeconds(pid, 1<<30); err == nil {
		t.Error("a thread that does not exist read no error")
	}
}
