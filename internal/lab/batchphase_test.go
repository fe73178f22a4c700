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

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/service"
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
	cfg.Budget = service.Budget{CPUs: 2}
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
	cfg.Budget = service.Budget{CPUs: 2}
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
