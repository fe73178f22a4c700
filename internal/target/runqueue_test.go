package target

import (
	"os/exec"
	"testing"
	"time"
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

// A one-thread service pinned to a core that another process also spins on
// gets about half of the core: it waits for a CPU about as long as it runs.
func TestRunqueueWaitSeesCPUContention(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset not installed (util-linux)")
	}
	rival := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
	if err := rival.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { rival.Process.Kill(); rival.Wait() }()
	cmd, env := helperCmd(t, "burn", "1")
	p := launchT(t, LaunchConfig{Command: append([]string{"taskset", "-c", "0"}, cmd...), Env: env})
	samples := sampleFor(t, p, 100*time.Millisecond, 1500*time.Millisecond)
	w := Window(samples, samples[0].T, samples[len(samples)-1].T, 0, 2)
	if w.CPUSeconds <= 0 || w.RunqueueWaitSeconds < 0.5*w.CPUSeconds || w.RunqueueWaitSeconds > 2*w.CPUSeconds {
		t.Errorf("ran %.3fs, waited %.3fs for the shared core; want the wait about equal to the run time", w.CPUSeconds, w.RunqueueWaitSeconds)
	}
}
