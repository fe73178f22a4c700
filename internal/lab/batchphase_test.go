package lab

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/findings"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// serialPhaseShareTolerance is how far the serial phase's share may be
// from the program's own: its ends are found to a few of the scheduler
// trace's 25 ms steps (on a busy machine the last lines of a serial phase
// may read as parallel).
const serialPhaseShareTolerance = 0.05

// TestBatchSerialPhase is the serial-phase acceptance test: serialphase
// hashes on one goroutine for 1.8 s, then on GOMAXPROCS goroutines for
// 1.2 s, under --cpus 2. A finding names the phase, its share within a
// few points of the program's own clock, and its code,
// main.chainDigest (not the parallel phase's main.hashShard); the
// scheduler trace perflab asked for stays out of the program's last
// lines. The phases are measured in the program's own terms (its Ps
// running goroutines), so it holds on a machine whose other work keeps
// the program's threads waiting for the cores: the test takes no CPU
// weight of its own.
func TestBatchSerialPhase(t *testing.T) {
	labtest.RequireRoot(t, "cgroups, perf and eBPF")
	if runtime.NumCPU() < 2 {
		t.Skip("a serial phase needs a machine of 2 cores or more")
	}
	checkSerialPhase(t, labtest.BuildService(t, "serialphase"))
}

// TestBatchSerialPhaseBesideSpinners: the same beside a spinning process
// a core, at the CPU weight of the program's: its threads wait for the
// cores a good part of the time, in both phases, on a machine otherwise
// idle.
func TestBatchSerialPhaseBesideSpinners(t *testing.T) {
	labtest.RequireRoot(t, "cgroups, perf and eBPF")
	if runtime.NumCPU() < 2 {
		t.Skip("a serial phase needs a machine of 2 cores or more")
	}
	bin := labtest.BuildService(t, "serialphase")
	for range runtime.NumCPU() {
		spin := exec.Command("sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			spin.Process.Kill()
			spin.Wait()
		})
	}
	checkSerialPhase(t, bin)
}

// checkSerialPhase runs serialphase (bin) under --cpus 2 and checks its
// serial phase's finding.
func checkSerialPhase(t *testing.T, bin string) {
	t.Helper()
	cfg := batchConfig(t, bin)
	cfg.Budget = target.Budget{CPUs: 2}
	r, dir := runBatch(t, cfg)
	from, to, end := serialPhaseClock(t, r)
	want := (to - from) / end
	var f *runfmt.Finding
	for i := range r.Findings {
		if r.Findings[i].Kind == runfmt.FindingSerialPhase {
			f = &r.Findings[i]
			break
		}
	}
	if f == nil {
		t.Fatalf("no serial phase among %v; the program's serial phase was %.0f%% of its run by its clock; %s", findingKinds(r.Findings), 100*want, schedTraceSummary(dir))
	}
	w := title(*f) + " " + detail(*f)
	t.Logf("program's clock: serial %.3f s to %.3f s of %.3f s (%.1f%%); wall %.3f s; finding: %s", from, to, end, 100*want, r.Batch.WallS, w)
	// The share is of the wall time from the program's release to perflab
	// seeing it exit, which on a busy machine can outlast the program's
	// clock by a second (its start, and perflab's wait for its exit):
	// the phase is checked against the program's clock, and the share is
	// checked to be the phase's of the wall time.
	ph := f.Figures[runfmt.FigPhaseTo] - f.Figures[runfmt.FigPhaseFrom]
	if got := ph / end; math.Abs(got-want) > serialPhaseShareTolerance {
		t.Errorf("phase of %.3f s, %.3f of the program's %.3f s; want %.3f ± %.2f (%s; %s)", ph, got, end, want, serialPhaseShareTolerance, w, schedTraceSummary(dir))
	}
	if share := f.Figures[runfmt.FigShare]; math.Abs(share-ph/r.Batch.WallS) > 1e-9 {
		t.Errorf("share %g; want the phase's %.3f s of the wall time %.3f s", share, ph, r.Batch.WallS)
	}
	if c, ok := f.Culprit(); !ok || c.Function != "main.chainDigest" || len(f.Lines) == 0 || !strings.HasSuffix(f.Lines[0].File, "serialphase/main.go") {
		t.Errorf("culprit %+v, lines %+v; want main.chainDigest with its line (%s)", c, f.Lines, w)
	}
	if f.Settings[runfmt.SettingSource] != runfmt.SourceGoScheduler || f.Figures[runfmt.FigUsableCores] != 2 ||
		!strings.Contains(w, "of the 2 cores it could use") || !strings.Contains(w, "Amdahl") {
		t.Errorf("settings %v, figures %v: %q; want the Go scheduler's timeline, 2 usable cores, the payoff", f.Settings, f.Figures, w)
	}
	if saved := f.Figures[runfmt.FigSavedTime]; math.Abs(saved-(f.Figures[runfmt.FigPhaseTo]-f.Figures[runfmt.FigPhaseFrom])/2) > 1e-9 {
		t.Errorf("saved %g s; want half the phase on 2 cores", saved)
	}
	if slices.ContainsFunc(r.Batch.LastLines, capture.IsSchedLine) {
		t.Errorf("the program's last lines hold perflab's scheduler trace: %q", r.Batch.LastLines)
	}
}

// TestBatchNoSerialPhase: a program parallel throughout has no serial
// phase, nor a serial finding.
func TestBatchNoSerialPhase(t *testing.T) {
	labtest.RequireRoot(t, "cgroups, perf and eBPF")
	if runtime.NumCPU() < 2 {
		t.Skip("a serial phase needs a machine of 2 cores or more")
	}
	bin := labtest.BuildService(t, "serialphase")
	cfg := batchConfig(t, bin, "-serial", "0", "-parallel", "3s")
	cfg.Budget = target.Budget{CPUs: 2}
	r, dir := runBatch(t, cfg)
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingSerialPhase || f.Kind == runfmt.FindingSerial {
			t.Errorf("a parallel program has %s: %s %s (%s)", f.Kind, title(f), detail(f), schedTraceSummary(dir))
		}
	}
}

// runBatch runs cfg's program and reads its run, which must be complete,
// and its directory.
func runBatch(t *testing.T, cfg BatchConfig) (*runfmt.Run, string) {
	t.Helper()
	res, err := RunBatch(context.Background(), cfg)
	if err != nil {
		t.Fatalf("RunBatch: %v", err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusComplete {
		t.Fatalf("status %s (%s); want complete", r.Status, r.PartialReason)
	}
	return r, res.Dir
}

// serialPhaseClock reads serialphase's phases as its own clock measured
// them, in seconds from its start.
func serialPhaseClock(t *testing.T, r *runfmt.Run) (from, to, end float64) {
	t.Helper()
	for _, l := range r.Batch.LastLines {
		var n int
		if _, err := fmt.Sscanf(l, "serial %f s to %f s, parallel to %f s, GOMAXPROCS %d", &from, &to, &end, &n); err == nil && end > 0 {
			return from, to, end
		}
	}
	t.Fatalf("no phases in the program's last lines %q", r.Batch.LastLines)
	return 0, 0, 0
}

// schedTraceSummary is the Ps the scheduler trace of a run's program saw
// running at each of its lines, for a failure's message.
func schedTraceSummary(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "target.log"))
	if err != nil {
		return "no target.log: " + err.Error()
	}
	var running []string
	for l := range strings.Lines(string(b)) {
		if s, ok := capture.ParseSchedLine(strings.TrimSpace(l)); ok {
			running = append(running, fmt.Sprintf("%d:%d", s.At.Milliseconds(), s.Running()))
		}
	}
	return fmt.Sprintf("the Ps running at each line of the scheduler trace (ms:Ps): %s", strings.Join(running, " "))
}

func findingKinds(fs []runfmt.Finding) []runfmt.FindingKind {
	var out []runfmt.FindingKind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

// TestBatchTimelines: the sampler's readings become steps cut to the run;
// a Go program's scheduler trace becomes steps placed from the earliest
// its lines were read, the trace of two processes none; perf's samples
// count in the steps they fall in.
func TestBatchTimelines(t *testing.T) {
	start := time.Now()
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	smp := []target.Sample{{T: at(-0.05)}, {T: at(0.1), CPUSeconds: 0.1, RunqueueWaitSeconds: 0.05}, {T: at(0.6), CPUSeconds: 0.6, RunqueueWaitSeconds: 0.05}, {T: at(1.05), CPUSeconds: 1.05, RunqueueWaitSeconds: 0.1}}
	tl := sampledSteps(start, smp, 1)
	want := []struct{ from, to, busy, wait float64 }{{0, 0.1, 0.1, 0.05}, {0.1, 0.6, 0.5, 0}, {0.6, 1, 0.45, 0.05}}
	if len(tl.Slices) != len(want) {
		t.Fatalf("sampled steps %+v; want %v", tl.Slices, want)
	}
	for i, w := range want {
		if s := tl.Slices[i]; !nearly(s.From, w.from) || !nearly(s.To, w.to) || !nearly(s.BusyS, w.busy) || !nearly(s.WaitS, w.wait) {
			t.Errorf("sampled step %d %+v; want %+v", i, s, w)
		}
	}

	var st schedTrace
	for i := range 6 {
		l := fmt.Sprintf("SCHED %dms: gomaxprocs=2 idleprocs=%d threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]", 100*i, i%2)
		st.add(l)
		// Read 30 ms after the runtime's start and 10 to 40 ms later.
		st.read[i] = at(0.03 + 0.1*float64(i) + 0.01*float64(i%4))
	}
	tl = st.timeline(start, 1, nil)
	if tl.Source != runfmt.SourceGoScheduler || len(tl.Slices) != 6 || !nearly(tl.StepS, 0.1) {
		t.Fatalf("scheduler steps %+v; want 6 of 0.1 s", tl)
	}
	if s := tl.Slices[1]; !nearly(s.From, 0.08) || !nearly(s.To, 0.18) || !nearly(s.BusyS, 0.1) || !nearly(tl.Slices[0].BusyS, 2*0.08) {
		t.Errorf("scheduler steps %+v; want the second from 0.08 s to 0.18 s, one P busy", tl.Slices)
	}
	st.add("SCHED 50ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]")
	if tl := st.timeline(start, 1, nil); len(tl.Slices) != 0 {
		t.Errorf("the trace of two processes gave steps %+v", tl.Slices)
	}

	p := &profile.Profile{Period: 1e7}
	s1, s2 := &profile.Sample{Value: []int64{3, 3e7}}, &profile.Sample{Value: []int64{1, 1e7}}
	p.Sample = []*profile.Sample{s1, s2}
	b := &batch{start: start, end: at(0.25), startMono: time.Hour, cpu: p, perf: &batchPerf{times: []capture.SampleTime{
		{Sample: s1, Mono: time.Hour + 10*time.Millisecond}, {Sample: s2, Mono: time.Hour + 20*time.Millisecond}, {Sample: s1, Mono: time.Hour + 150*time.Millisecond},
		{Sample: s1, Mono: time.Hour - time.Millisecond}}}}
	tl = b.perfTimeline(0.25)
	if len(tl.Slices) != 3 || !nearly(tl.Slices[0].BusyS, 0.02) || !nearly(tl.Slices[1].BusyS, 0.01) || tl.Slices[2].BusyS != 0 || !nearly(tl.Slices[2].To, 0.25) {
		t.Errorf("perf steps %+v; want 20 ms, 10 ms and none", tl.Slices)
	}
	span := b.spanProfile(time.Hour, time.Hour+100*time.Millisecond)
	if len(span.Sample) != 2 || span.Sample[0].Value[0] != 1 || span.Sample[0].Value[1] != 1e7 || span.Sample[1].Value[0] != 1 {
		t.Errorf("span profile samples %v %v; want one sample of each stack", span.Sample[0].Value, span.Sample[1].Value)
	}
}

// TestBatchScheduleGaps: where the scheduler's trace has a gap between
// lines that differ, the change is put where the sampled timeline's
// demand changes most, when it changes the same way; else halfway.
func TestBatchScheduleGaps(t *testing.T) {
	start := time.Now()
	var st schedTrace
	lines := []struct {
		ms, idle int
	}{{0, 1}, {100, 1}, {200, 1}, {300, 1}, {400, 1}, {1200, 0}, {1300, 0}}
	for _, l := range lines {
		st.add(fmt.Sprintf("SCHED %dms: gomaxprocs=2 idleprocs=%d threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]", l.ms, l.idle))
		st.read[len(st.read)-1] = start.Add(time.Duration(l.ms) * time.Millisecond)
	}
	sampled := steps(0.1, 1.3, 1.2, 1.4, 1.3, 1.2, 1.4, 2.3, 1.9, 2.1, 2.2, 1.9, 2.0, 2.1, 2.2)
	split := func(from, to float64, rising bool) (float64, bool) { return changePoint(sampled, from, to, rising) }
	for _, c := range []struct {
		split gapSplit
		want  float64
	}{{split, 0.6}, {nil, 0.8}} {
		tl := st.timeline(start, 1.4, c.split)
		if len(tl.Slices) != 7 || !nearly(tl.Slices[4].To, c.want) || !nearly(tl.Slices[5].From, c.want) {
			t.Errorf("split %t: steps %+v; want the gap split at %g s", c.split != nil, tl.Slices, c.want)
		}
	}
	sampled = steps(0.1, 1.3, 1.2, 1.4, 1.3, 1.2, 1.4, 1.3, 1.2, 1.3, 2.1, 2.2, 1.9, 2.0, 2.1)
	if tl := st.timeline(start, 1.4, split); !nearly(tl.Slices[4].To, 0.9) {
		t.Errorf("steps %+v; want the gap split at 0.9 s, where the demand rose", tl.Slices)
	}
	if _, ok := changePoint(sampled, 0.4, 1.2, false); ok {
		t.Error("a demand that rises was taken for one that falls")
	}
}

// steps is a sampled timeline of step-second slices of the demands given.
func steps(step float64, demand ...float64) findings.Timeline {
	tl := findings.Timeline{Source: runfmt.SourceSampler, StepS: step}
	for i, d := range demand {
		tl.Slices = append(tl.Slices, findings.Slice{From: float64(i) * step, To: float64(i+1) * step, BusyS: d * step})
	}
	return tl
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestBatchTraceScheduler: a Go program gets GODEBUG=schedtrace beside the
// GODEBUG settings it has, from --env or else perflab's environment, and
// its trace is kept out of its last lines; a GODEBUG that sets the trace
// itself is left as it is, its trace in the output.
func TestBatchTraceScheduler(t *testing.T) {
	t.Setenv("GODEBUG", "madvdontneed=1")
	for _, c := range []struct {
		env  []string
		want string // the GODEBUG added, "" for none
	}{
		{nil, "madvdontneed=1,schedtrace=25"},
		{[]string{"GODEBUG=gctrace=1", "GOMAXPROCS=16"}, "gctrace=1,schedtrace=63"},
		{[]string{"GODEBUG="}, "schedtrace=25"},
		{[]string{"GODEBUG=schedtrace=0"}, ""},
		{[]string{"GODEBUG=x=1, schedtrace=500"}, ""},
	} {
		b := &batch{cfg: BatchConfig{Config: Config{Env: c.env, Budget: target.Budget{CPUs: 2}}}, goVersion: "go1.26.0"}
		lc := target.LaunchConfig{Env: c.env}
		b.traceScheduler(&lc)
		got, _ := lookupEnv(lc.Env, "GODEBUG")
		if c.want == "" {
			if len(lc.Env) != len(c.env) || lc.HideLine != nil {
				t.Errorf("env %q: %q, hidden %t; want it as it was, the trace shown", c.env, lc.Env, lc.HideLine != nil)
			}
		} else if got != c.want || lc.HideLine == nil {
			t.Errorf("env %q: GODEBUG %q, hidden %t; want %q, hidden", c.env, got, lc.HideLine != nil, c.want)
		}
		if lc.OnLine == nil || lc.LineMatch != capture.SchedLineMatch {
			t.Errorf("env %q: the trace's lines are not read", c.env)
		}
	}
}
