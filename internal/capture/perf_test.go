package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
)

// needPerf skips the test unless perf can sample a process here.
func needPerf(t *testing.T) {
	t.Helper()
	labtest.NeedTool(t, "perf", "")
	if reason := perfUsable(); reason != "" {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "perf-events", reason))
	}
}

// perfUsable tries perf once per test run; "" means it works.
var perfUsable = sync.OnceValue(func() string {
	out, err := exec.Command("perf", "record", "-e", "cpu-clock", "-o", "/dev/null", "--", "true").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("perf cannot record here: %v: %s", err, lastLines(string(out), 3))
	}
	return ""
})

// startBusy starts cmd and stops it when the test ends.
func startBusy(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

func TestPerfRecordGoProcess(t *testing.T) {
	t.Parallel()
	needPerf(t)
	cmd := exec.Command(buildProgram(t, "perfburn"))
	startBusy(t, cmd)
	p, ran, err := recordBurner(t, cmd.Process.Pid, PerfConfig{Seconds: 60}, false)
	if err != nil {
		t.Fatalf("PerfRecord: %v", err)
	}
	checkSampled(t, p, ran)
	if err := p.CheckValid(); err != nil {
		t.Errorf("perf profile invalid: %v", err)
	}
	if want := int64(1e9) / 99; p.Period != want || p.DurationNanos <= 0 || p.DurationNanos >= 60e9 {
		t.Errorf("period %d, duration %d; want %d, the time until the stop", p.Period, p.DurationNanos, want)
	}
}

func TestPerfRecordKeepsSamplesOnCancel(t *testing.T) {
	t.Parallel()
	needPerf(t)
	cmd := exec.Command(buildProgram(t, "perfburn"))
	startBusy(t, cmd)
	p, ran, err := recordBurner(t, cmd.Process.Pid, PerfConfig{Seconds: 60}, true)
	if err != nil {
		t.Fatalf("PerfRecord interrupted: %v; want the samples so far", err)
	}
	checkSampled(t, p, ran)
	if p.DurationNanos >= 60e9 {
		t.Errorf("duration %v; want the time until the interruption", time.Duration(p.DurationNanos))
	}
}

// burnerCPU is the CPU time recordBurner waits for the burner to run
// while perf samples it: 0.5 s, 49 samples at 99 Hz.
const burnerCPU = 500 * time.Millisecond

// recordBurner records pid with perf (events enabled once perf has
// attached) until the process has run burnerCPU on a CPU since then, however
// long a busy machine takes to give it that (a minute at most), then stops
// perf by cancelling its context (cancel) or through Stop. It returns the
// profile and the CPU time the process ran while it was sampled.
func recordBurner(t *testing.T, pid int, cfg PerfConfig, cancel bool) (*profile.Profile, time.Duration, error) {
	t.Helper()
	ctx, stopCtx := context.WithCancel(context.Background())
	defer stopCtx()
	stop := make(chan struct{})
	attached := make(chan struct{})
	cfg.PIDs, cfg.OnAttached, cfg.Stop = []int{pid}, func() { close(attached) }, stop
	var ran time.Duration
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		select {
		case <-attached:
		case <-time.After(time.Minute):
			t.Error("perf did not attach within a minute")
		}
		base := onCPU(t, pid)
		labtest.Until(time.Minute, func() bool { return onCPU(t, pid)-base >= burnerCPU })
		ran = onCPU(t, pid) - base
		if cancel {
			stopCtx()
		} else {
			close(stop)
		}
	}()
	p, err := PerfRecord(ctx, cfg)
	<-waited
	return p, ran, err
}

// TestPerfRecordJITMap samples a process that runs code from an anonymous
// executable page and names it in /tmp/perf-PID.map, as JITs do.
func TestPerfRecordJITMap(t *testing.T) {
	t.Parallel()
	needPerf(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the JIT test program's machine code is x86-64")
	}
	cc := labtest.NeedTool(t, "cc", "")
	bin := filepath.Join(t.TempDir(), "jitspin")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/jitspin.c").CombinedOutput(); err != nil {
		t.Fatalf("building jitspin: %v: %s", err, out)
	}
	cmd := exec.Command(bin)
	out, _ := cmd.StdoutPipe()
	startBusy(t, cmd)
	mapFile := fmt.Sprintf("/tmp/perf-%d.map", cmd.Process.Pid)
	t.Cleanup(func() { os.Remove(mapFile) })
	ready := make([]byte, 6)
	if _, err := out.Read(ready); err != nil || string(ready) != "ready\n" {
		t.Fatalf("jitspin did not start: %q, %v", ready, err)
	}
	p, err := PerfRecord(context.Background(), PerfConfig{PIDs: []int{cmd.Process.Pid}, Seconds: 0.5})
	if err != nil {
		t.Fatalf("PerfRecord: %v", err)
	}
	if !hasFunction(p, "perflab_jit_spin") {
		t.Fatalf("perf profile of %d samples lacks perflab_jit_spin from %s", len(p.Sample), mapFile)
	}
}

func TestPerfRecordErrors(t *testing.T) {
	needPerf(t)
	ctx := context.Background()
	_, err := PerfRecord(ctx, PerfConfig{PIDs: []int{1 << 22}, Seconds: 0.2})
	if !errors.Is(err, ErrProcessGone) {
		t.Errorf("PerfRecord(missing pid) = %v; want ErrProcessGone", err)
	}
	_, err = PerfRecord(ctx, PerfConfig{PIDs: []int{1}, Seconds: 0.2, PerfPath: "/nonexistent/perf"})
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "install linux-perf") {
		t.Errorf("PerfRecord(missing perf) = %v; want ErrToolMissing with the install hint", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = PerfRecord(cctx, PerfConfig{PIDs: []int{os.Getpid()}, Seconds: 20})
	t.Logf("cancelled PerfRecord returned after %s: %v", time.Since(start), err)
	// Soon: within perf's own bound after a cancellation (5 s to stop, then
	// perf script), not the 20 s asked for.
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 12*time.Second {
		t.Errorf("PerfRecord cancelled after 300ms = %v after %s; want the context's error, soon", err, time.Since(start))
	}
	for _, cfg := range []PerfConfig{{Seconds: 1}, {PIDs: []int{1}}, {PIDs: []int{-1}, Seconds: 1}, {PIDs: []int{1}, Seconds: 1, Hz: -5},
		{PIDs: []int{1}, Seconds: 1, DWARFStackBytes: -8}, {PIDs: []int{1}, Seconds: 1, DWARFStackBytes: 1000}, {PIDs: []int{1}, Seconds: 1, DWARFStackBytes: 1 << 16}} {
		if _, err := PerfRecord(ctx, cfg); err == nil {
			t.Errorf("PerfRecord(%+v) = nil error, want invalid config", cfg)
		}
	}
}

// TestPerfRecordNotPermitted runs perf as an unprivileged user against a
// root process: the kernel refuses, and the error says what to change.
func TestPerfRecordNotPermitted(t *testing.T) {
	t.Parallel()
	needPerf(t)
	labtest.RequireRoot(t, "drops to an unprivileged user")
	labtest.NeedTool(t, "setpriv", "")
	perf, _ := exec.LookPath("perf")
	wrapper := filepath.Join(t.TempDir(), "perf-as-nobody")
	// The wrapper lets nobody write perf.data, so the refusal comes from the
	// kernel, not from the output directory.
	script := "#!/bin/sh\nprev=\nfor a in \"$@\"; do [ \"$prev\" = -o ] && chmod 0777 \"$(dirname \"$a\")\"; prev=$a; done\n" +
		"exec setpriv --reuid=65534 --regid=65534 --clear-groups " + perf + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "10")
	startBusy(t, cmd)
	_, err := PerfRecord(context.Background(), PerfConfig{PIDs: []int{cmd.Process.Pid}, Seconds: 0.2, PerfPath: wrapper})
	if !errors.Is(err, ErrNotPermitted) || !strings.Contains(err.Error(), "perf_event_paranoid") {
		t.Fatalf("PerfRecord as nobody = %v; want ErrNotPermitted naming perf_event_paranoid", err)
	}
}

// onCPU is how long the process's threads have run on a CPU (the
// scheduler's count, /proc/PID/task/*/schedstat).
func onCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, task := range tasks {
		var v int64
		if b, err := os.ReadFile(task); err == nil {
			fmt.Sscan(string(b), &v)
		}
		ns += v
	}
	return time.Duration(ns)
}

// checkSampled checks a perf profile of perfburn against the CPU time the
// process ran while perf sampled it: perf samples on-CPU time at 99 Hz,
// so it asks for a tenth of what that time gives (the rest is slack for
// the samples perf is still writing when stopped) and the hot function.
func checkSampled(t *testing.T, p *profile.Profile, ran time.Duration) {
	t.Helper()
	n := totalSamples(p.Sample)
	want := max(1, int64(ran.Seconds()*99/10))
	if n < want || !hasFunction(p, "main.perflabBurnHot") {
		t.Fatalf("perf profile: %d samples for %s on a CPU (want %d or more), hot function main.perflabBurnHot found: %t",
			n, ran, want, hasFunction(p, "main.perflabBurnHot"))
	}
}

// TestPerfRecordDWARF samples a C program built without frame pointers
// with DWARF unwinding: its stacks reach main through every caller.
func TestPerfRecordDWARF(t *testing.T) {
	t.Parallel()
	needPerf(t)
	cc := labtest.NeedTool(t, "cc", "")
	bin := filepath.Join(t.TempDir(), "deepspin")
	if out, err := exec.Command(cc, "-O2", "-fomit-frame-pointer", "-o", bin, "testdata/deepspin.c").CombinedOutput(); err != nil {
		t.Fatalf("building deepspin: %v: %s", err, out)
	}
	cmd := exec.Command(bin)
	out, _ := cmd.StdoutPipe()
	startBusy(t, cmd)
	ready := make([]byte, 6)
	if _, err := out.Read(ready); err != nil || string(ready) != "ready\n" {
		t.Fatalf("deepspin did not start: %q, %v", ready, err)
	}
	p, ran, err := recordBurner(t, cmd.Process.Pid, PerfConfig{Seconds: 60, DWARFStackBytes: 8192}, false)
	if err != nil {
		t.Fatalf("PerfRecord: %v", err)
	}
	if n := totalSamples(p.Sample); n < 5 {
		t.Fatalf("perf profile: %d samples for %v on a CPU; want 5 or more", n, ran)
	}
	var inLeaf, reachMain int64
	for _, s := range p.Sample {
		if f := frameNames(s); len(f) > 0 && f[0] == "leaf" {
			inLeaf += s.Value[0]
			if slices.Equal(f[1:min(4, len(f))], []string{"middle", "outer", "main"}) {
				reachMain += s.Value[0]
			}
		}
	}
	if inLeaf == 0 || float64(reachMain) < 0.9*float64(inLeaf) {
		t.Errorf("DWARF unwinding: %d of %d samples in leaf reach main through middle and outer; want 90%% or more", reachMain, inLeaf)
	}
}

// frameNames are a sample's function names, leaf first.
func frameNames(s *profile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			out = append(out, l.Function.Name)
		}
	}
	return out
}
