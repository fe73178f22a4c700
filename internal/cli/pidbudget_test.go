package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// startBurner starts the CPU-hungry service as a process perflab did not
// start, waits until it answers, and returns its pid and URL.
func startBurner(t *testing.T) (int, string) {
	t.Helper()
	addr := labtest.FreeAddr(t)
	pid := labtest.StartOrphan(t, []string{inputsServiceEnv + "=burn " + addr}, os.Args[0])
	url := "http://" + addr + "/"
	labtest.Eventually(t, 10*time.Second, fmt.Sprintf("the burner (pid %d) to answer on %s", pid, url), func() bool {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return pid, url
}

func procCgroup(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// watchBudget watches pid until it is seen in perflab's budget group,
// then cancels cancel (if given); seen, called once the run is over,
// stops the watch and says whether it was.
func watchBudget(t *testing.T, pid int, cancel func()) (seen func() bool) {
	t.Helper()
	done, stop := make(chan struct{}), make(chan struct{})
	var in bool
	var mu sync.Mutex
	go func() {
		defer close(done)
		labtest.Until(60*time.Second, func() bool {
			select {
			case <-stop:
				return true
			default:
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
			if err != nil {
				return true
			}
			if bytes.Contains(b, []byte("perflab-attach+")) {
				mu.Lock()
				in = true
				mu.Unlock()
				if cancel != nil {
					cancel()
				}
				return true
			}
			return false
		})
	}()
	var once sync.Once
	return func() bool {
		once.Do(func() { close(stop) })
		<-done
		mu.Lock()
		defer mu.Unlock()
		return in
	}
}

// TestPidWithCPUsMeasuresUnderBudget attaches to a service spinning on two
// cores with --cpus 0.5: perflab moves it into a budget group for the
// run, measures at most the budget, and moves it back after.
func TestPidWithCPUsMeasuresUnderBudget(t *testing.T) {
	labtest.RequireRoot(t, "moving a process between cgroups")
	pid, url := startBurner(t)
	before := procCgroup(t, pid)
	seen := watchBudget(t, pid, nil)
	code, stdout, stderr := perflab(t, "run", "--pid", strconv.Itoa(pid), "--cpus", "0.5", "-c", "2", "-d", "3s", "--warmup", "500ms",
		"--profiler", "none", "--no-trace", "--quiet", "--json", "--dir", t.TempDir(), url)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRun(t, stdout)
	if !seen() {
		t.Error("the service was never in perflab's budget group during the run")
	}
	if r.Target == nil {
		t.Fatal("run.json has no target")
	}
	t.Logf("%.3f cores mean, throttled %.0f%%, source %s", r.Target.CPUCoresMean, r.Target.ThrottledPct, r.Target.Source)
	if r.Target.CPULimitCores != 0.5 || r.Target.CPUCoresMean > 0.55 || r.Target.CPUCoresMean <= 0 {
		t.Errorf("cpu_limit_cores %v, cpu_cores_mean %v; want 0.5 and a mean of at most 0.55", r.Target.CPULimitCores, r.Target.CPUCoresMean)
	}
	if after := procCgroup(t, pid); after != before {
		t.Errorf("after the run the service is in %q; want its own cgroups %q", after, before)
	}
}

// TestPidWithCPUsMovesBackOnInterruptAndFailure interrupts a --pid --cpus
// run once the service is in the budget group (Ctrl-C: exit 130), then
// fails one (its readiness URL refuses: exit 3): the service is back in
// its own cgroups both times.
func TestPidWithCPUsMovesBackOnInterruptAndFailure(t *testing.T) {
	labtest.RequireRoot(t, "moving a process between cgroups")
	pid, url := startBurner(t)
	before := procCgroup(t, pid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := watchBudget(t, pid, cancel)
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Executable: os.Args[0]}
	code := Main(ctx, []string{"run", "--pid", strconv.Itoa(pid), "--cpus", "0.5", "-d", "30s", "--profiler", "none", "--no-trace", "--quiet", "--dir", t.TempDir(), url}, env)
	if !seen() || code != int(ExitInterrupted) {
		t.Fatalf("interrupted run: in the budget group %v, exit %d (%s); want true and %d", seen(), code, errb.String(), ExitInterrupted)
	}
	if after := procCgroup(t, pid); after != before {
		t.Errorf("after Ctrl-C the service is in %q; want %q", after, before)
	}
	code, _, stderr := perflab(t, "run", "--pid", strconv.Itoa(pid), "--cpus", "0.5", "--ready", "http://"+labtest.RefusedAddr(t)+"/",
		"--ready-timeout", "1s", "--profiler", "none", "--quiet", "--dir", t.TempDir(), url)
	if code != int(ExitFailed) {
		t.Errorf("run with a refusing --ready: exit %d (%s); want %d", code, stderr, ExitFailed)
	}
	if after := procCgroup(t, pid); after != before {
		t.Errorf("after the failed run the service is in %q; want %q", after, before)
	}
}
