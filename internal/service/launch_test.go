package service

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"

	"golang.org/x/sys/unix"
)

// steady returns the samples after the first second.
func steady(ss []Sample) (time.Time, time.Time) {
	return ss[0].T.Add(time.Second), ss[len(ss)-1].T
}

func TestHalfCoreBudget(t *testing.T) {
	cmd, env := niceCmd(t, "burn", "2")
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{CPUs: 0.5}, Name: "half"})
	needCgroup(t, p)
	if got := p.CPULimitCores(); got != 0.5 {
		t.Errorf("CPULimitCores = %v; want 0.5", got)
	}
	atBudget := func(w runfmt.TargetSummary) bool {
		return math.Abs(w.CPUCoresMean-0.5) <= 0.03 && w.ThrottledPct >= 50 && w.ThrottledSeconds > 0 && w.CPUBound
	}
	w := cleanWindow(t, p, 4*time.Second, atBudget)
	t.Logf("%s: %+v", p.Source(), w)
	if math.Abs(w.CPUCoresMean-0.5) > 0.03 {
		t.Errorf("mean cores %.3f; want 0.5 ± 0.03", w.CPUCoresMean)
	}
	if w.ThrottledPct < 50 || w.ThrottledSeconds <= 0 || !w.CPUBound {
		t.Errorf("want throttling reported and CPU-bound: %+v", w)
	}
}

func TestTwoCoresOneThread(t *testing.T) {
	cmd, env := niceCmd(t, "burn", "1")
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{CPUs: 2}, Name: "two"})
	needCgroup(t, p)
	oneCore := func(w runfmt.TargetSummary) bool {
		return !w.CPUBound && w.ThrottledPct <= 1 && w.CPUCoresMean >= 0.8 && w.CPUCoresMean <= 1.1
	}
	w := cleanWindow(t, p, 3*time.Second, oneCore)
	t.Logf("%+v", w)
	if !oneCore(w) {
		t.Errorf("one spinning thread under 2 cores: want about 1 core, no throttling, not CPU-bound: %+v", w)
	}
}

// knownCPU compares the sampled CPU with what the burner measured with
// getrusage itself.
func knownCPU(t *testing.T, p *Process, burners int) {
	t.Helper()
	var truth float64
	// Each burner prints the CPU it used; a missing line shows below as
	// too little truth.
	labtest.Until(20*time.Second, func() bool {
		n := 0
		truth = 0
		for _, l := range p.LogTail(50) {
			if v, ok := strings.CutPrefix(l, "cpu="); ok {
				f, _ := strconv.ParseFloat(v, 64)
				truth += f
				n++
			}
		}
		return n >= burners
	})
	// A burner that exits is counted once the shell reaps it (cutime):
	// sample until the CPU it reported is there, 5 s at most.
	s := NewSampler(p, 0)
	var smp Sample
	labtest.Until(5*time.Second, func() bool {
		var ok bool
		if smp, ok = s.sample(time.Now()); !ok {
			t.Fatal("sample failed")
		}
		return smp.CPUSeconds >= 0.95*truth
	})
	t.Logf("%s: sampled %.3fs, getrusage %.3fs", smp.Source, smp.CPUSeconds, truth)
	// Each burner reports what it burned; the process also spent CPU
	// starting and exiting (the Go runtime, the test binary's init: tens
	// of milliseconds on a busy machine, more under the race detector),
	// which the sample rightly counts: up to startUp per burner above.
	const startUp = 0.05
	if truth < 0.5 || smp.CPUSeconds < 0.95*truth || smp.CPUSeconds > 1.05*truth+startUp*float64(burners) {
		t.Errorf("sampled CPU %.3fs; want %.3fs -5%%/+5%% and %.2fs of start-up per process", smp.CPUSeconds, truth, startUp)
	}
}

func TestKnownCPUCgroup(t *testing.T) {
	cmd, env := helperCmd(t, "burnfor", "1")
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "known"})
	needCgroup(t, p)
	knownCPU(t, p, 1)
}

// TestKnownCPUProc measures through /proc a shell whose two children burn
// and exit: their CPU stays counted through the shell's cutime.
func TestKnownCPUProc(t *testing.T) {
	exe, _ := os.Executable()
	script := `"$0" 0.4 exit; "$0" 0.4 exit & wait; sleep 60`
	p := launchWith(t, LaunchConfig{Command: []string{"sh", "-c", script, exe}, Env: []string{helperEnv + "=burnfor"}}, layout{})
	if p.Source() != "proc" {
		t.Fatalf("Source = %s; want proc", p.Source())
	}
	knownCPU(t, p, 2)
}

func TestMemoryBudget(t *testing.T) {
	cmd, env := helperCmd(t, "serve", labtest.FreeAddr(t))
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{MemoryBytes: 64 << 20}, Name: "mem"})
	waitLine(t, p, "listening", 5*time.Second)
	needCgroup(t, p)
	if got := p.MemoryLimitBytes(); got != 64<<20 {
		t.Errorf("MemoryLimitBytes = %d; want %d", got, 64<<20)
	}
	smp, ok := NewSampler(p, 0).sample(time.Now())
	if !ok || smp.MemoryBytes <= 0 || smp.RSSBytes <= 0 || smp.Threads < 1 {
		t.Errorf("sample = %+v; want memory, RSS and threads", smp)
	}
}

func TestStopKillsChildren(t *testing.T) {
	script := `sleep 300 & sleep 301 & (sleep 302 &); echo started; wait`
	p, err := Launch(t.Context(), LaunchConfig{Command: []string{"sh", "-c", script}, Name: "kids", LogPath: filepath.Join(t.TempDir(), "target.log")})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, p, "started", 5*time.Second)
	var pids []int
	if !labtest.Until(5*time.Second, func() bool { pids = p.PIDs(); return len(pids) >= 4 }) {
		t.Errorf("PIDs = %v; want the shell and 3 sleeps", pids)
	}
	dirs := p.CgroupDirs()
	if err := p.Stop(2 * time.Second); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	var r fileReader
	var path []byte
	for _, pid := range pids {
		if !exitedPID(&r, &path, pid) {
			t.Errorf("pid %d survives Stop", pid)
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cgroup %s survives Stop: %v", d, err)
		}
	}
	if p.ExitErr() == nil || !strings.Contains(p.ExitErr().Error(), "signal 15") {
		t.Errorf("ExitErr = %v; want killed by signal 15", p.ExitErr())
	}
}

func TestStopEscalates(t *testing.T) {
	script := `trap '' TERM; echo trapped; while :; do sleep 0.05; done`
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", script}, Name: "stubborn"})
	waitLine(t, p, "trapped", 5*time.Second)
	start := time.Now()
	if err := p.Stop(300 * time.Millisecond); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("Stop took %s; want it to wait the 300ms grace", d)
	}
	if err := p.ExitErr(); err == nil || err.Error() != "killed by signal 9 (killed)" {
		t.Errorf("ExitErr = %v; want killed by signal 9", err)
	}
	if c := p.ExitCode(); c == nil || *c != 137 {
		t.Errorf("ExitCode = %v; want 137", c)
	}
}

func TestCommandNotFound(t *testing.T) {
	_, err := Launch(t.Context(), LaunchConfig{Command: []string{"perflab-no-such-command", "x"}})
	if err == nil || !strings.Contains(err.Error(), `"perflab-no-such-command"`) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("err = %v; want one naming the command and saying not found", err)
	}
	_, err = Launch(t.Context(), LaunchConfig{Command: []string{"./missing-server"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "missing-server") || !errors.Is(err, unix.ENOENT) {
		t.Errorf("err = %v; want one naming ./missing-server", err)
	}
	if _, err := Launch(t.Context(), LaunchConfig{}); err == nil {
		t.Error("empty command: want an error")
	}
	if _, err := Launch(t.Context(), LaunchConfig{Command: []string{"true"}, Budget: Budget{CPUs: -1}}); err == nil || !strings.Contains(err.Error(), "--cpus") {
		t.Errorf("bad budget: err = %v", err)
	}
}

func TestExitsAtOnce(t *testing.T) {
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", "echo starting; echo 'fatal: port in use' >&2; exit 3"}})
	err := WaitReady(t.Context(), ReadyProbe{URL: "http://" + labtest.RefusedAddr(t) + "/"}, 10*time.Second, p)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "fatal: port in use") {
		t.Errorf("WaitReady = %v; want the exit status and the last log lines", err)
	}
}

func TestNeverReady(t *testing.T) {
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", "echo warming up; sleep 60"}})
	url := "http://" + labtest.RefusedAddr(t) + "/health"
	err := WaitReady(t.Context(), ReadyProbe{URL: url}, 500*time.Millisecond, p)
	if err == nil || !strings.Contains(err.Error(), "service not ready after 500ms at "+url) || !strings.Contains(err.Error(), "warming up") {
		t.Errorf("WaitReady = %v", err)
	}
}

func TestReadyAndCrash(t *testing.T) {
	addr := labtest.FreeAddr(t)
	cmd, env := helperCmd(t, "serve-crash", addr)
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "crash"})
	if err := WaitReady(t.Context(), ReadyProbe{URL: "http://" + addr + "/"}, 10*time.Second, p); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("Exited not closed after the crash")
	}
	if err := p.ExitErr(); err == nil || err.Error() != "exit status 2" {
		t.Errorf("ExitErr = %v; want exit status 2", err)
	}
	if tail := p.LogTail(1); len(tail) != 1 || tail[0] != "panic: planted crash" {
		t.Errorf("LogTail(1) = %q", tail)
	}
}

func TestKilledBySignal(t *testing.T) {
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", "sleep 0.1; kill -SEGV $$"}})
	<-p.Exited()
	if err := p.ExitErr(); err == nil || !strings.HasPrefix(err.Error(), "killed by signal 11") {
		t.Errorf("ExitErr = %v; want killed by signal 11", err)
	}
}

// TestNoCgroupWarning launches without cgroups: the budget is reported as
// not enforced and CPU comes from /proc.
func TestNoCgroupWarning(t *testing.T) {
	p := launchWith(t, LaunchConfig{Command: []string{"sleep", "60"}, Budget: Budget{CPUs: 1}}, layout{})
	w := p.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "the budget (--cpus 1) is not enforced") || p.Source() != "proc" {
		t.Errorf("Warnings = %q, Source = %s", w, p.Source())
	}
}
