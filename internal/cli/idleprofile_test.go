package cli

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// idleProcess starts a process that sleeps (native: perf samples it) and
// returns its pid.
func idleProcess(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return strconv.Itoa(cmd.Process.Pid)
}

// TestProfileIdleProcess: the profile of a process that used no CPU is
// empty, not an error: the run is complete (exit 0) and says so.
func TestProfileIdleProcess(t *testing.T) {
	labtest.NeedTool(t, "perf", "")
	code, out, errb := perflab(t, "profile", "--pid", idleProcess(t), "--seconds", "1", "--dir", t.TempDir())
	if code != int(ExitOK) || !strings.Contains(out, "no samples: the service was idle") || !strings.Contains(out, ": complete") {
		t.Errorf("profile --pid of an idle process: exit %d\n%s%s\nwant exit 0, a complete run with no samples", code, out, errb)
	}
}

// TestProfileMissingProfilerNamed: without perf on PATH, the error names
// perf and how to install it, not merely that no process could be sampled.
func TestProfileMissingProfilerNamed(t *testing.T) {
	pid := idleProcess(t)
	t.Setenv("PATH", t.TempDir())
	code, out, errb := perflab(t, "profile", "--pid", pid, "--seconds", "1", "--dir", t.TempDir())
	if code != int(ExitFailed) || !strings.Contains(errb, "perf is not installed") || !strings.Contains(errb, "apt-get install linux-perf") {
		t.Errorf("profile without perf: exit %d\n%s%s\nwant exit 3 naming perf and its install line", code, out, errb)
	}
}
