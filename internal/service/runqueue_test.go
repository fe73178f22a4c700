package service

import (
	"testing"
	"time"

	"perflab/internal/labtest"
)

func TestParseSchedstatWait(t *testing.T) {
	for in, want := range map[string]int64{"174725010 32942426 446\n": 32942426, "1 0 0": 0} {
		if got, ok := parseSchedstatWait([]byte(in)); !ok || got != want {
			t.Errorf("parseSchedstatWait(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "12", "1 x 2", "1 -5 2"} {
		if _, ok := parseSchedstatWait([]byte(bad)); ok {
			t.Errorf("parseSchedstatWait(%q) accepted", bad)
		}
	}
}

// A one-thread service (a shell loop) that never sleeps, pinned to a core another process
// also spins on, is at every moment either running or waiting for the core:
// its run time plus its measured run-queue wait make up the window's wall
// time, and the rival alone keeps it waiting about half of it. The rival is
// launched the same way, into a sibling cgroup of the same weight: the
// scheduler shares a core between groups first, so a rival in the test's
// own group would share its half with whatever else runs there (on a busy
// machine the service then got 72% of the core). Other load on the machine
// shifts time from running to waiting, never out of the sum, so the test
// holds on a busy machine.
func TestRunqueueWaitSeesCPUContention(t *testing.T) {
	labtest.NeedTool(t, "taskset", "")
	launchT(t, LaunchConfig{Command: []string{"taskset", "-c", "0", "sh", "-c", "while :; do :; done"}})
	p := launchT(t, LaunchConfig{Command: []string{"taskset", "-c", "0", "sh", "-c", "while :; do :; done"}})
	samples := sampleFor(t, p, 100*time.Millisecond, 1500*time.Millisecond)
	from, to := samples[0].T, samples[len(samples)-1].T
	w := Window(samples, from, to, 0, 2)
	wall := to.Sub(from).Seconds()
	run, wait := w.CPUSeconds, w.RunqueueWaitSeconds
	t.Logf("ran %.3fs, waited %.3fs in a %.3fs window", run, wait, wall)
	if sum := run + wait; sum < 0.85*wall || sum > 1.15*wall {
		t.Errorf("ran %.3fs and waited %.3fs in a %.3fs window: want run + wait = the window (a thread that never sleeps)", run, wait, wall)
	}
	if wait < 0.35*wall {
		t.Errorf("waited %.3fs of a %.3fs window for a core another process spins on: want about half or more", wait, wall)
	}
}
