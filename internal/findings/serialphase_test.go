package findings

import (
	"math"
	"slices"
	"strings"
	"testing"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// steps is a timeline of step-second slices at the demands given (busy
// threads, or busy and waiting when waits are given too).
func steps(step float64, busy []float64, waits ...[]float64) Timeline {
	tl := Timeline{Source: runfmt.SourceSampler, StepS: step}
	for i, b := range busy {
		s := Slice{From: float64(i) * step, To: float64(i+1) * step, BusyS: b * step}
		if len(waits) > 0 {
			s.WaitS = waits[0][i] * step
		}
		tl.Slices = append(tl.Slices, s)
	}
	return tl
}

// repeat is n values v.
func repeat(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

// concat joins value lists.
func concat(parts ...[]float64) []float64 { return slices.Concat(parts...) }

// phaseBatch is a Go program of wall seconds on usable cores.
func phaseBatch(wall float64, usable int) *runfmt.Batch {
	return &runfmt.Batch{WallS: wall, CPUS: wall, CoresMean: 1,
		Cores: runfmt.BatchCores{Host: usable, CPUSet: usable, GOMAXPROCS: usable, Usable: usable, UsableBy: "host"}}
}

func within(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestSerialPhases: a serial phase is found from its start to its end
// within a step's fraction (the step it ended in mixes both demands),
// through bursts of a second thread and on a machine whose other work
// kept its threads waiting for a CPU; a parallel program, a program that
// sleeps, and one that could use a single core have none.
func TestSerialPhases(t *testing.T) {
	const step = 0.1
	for _, c := range []struct {
		name     string
		b        *runfmt.Batch
		tl       Timeline
		from, to []float64 // each phase's, longest first
	}{
		{"serial then parallel", phaseBatch(3, 2), steps(step, concat(repeat(1, 18), []float64{1.5}, repeat(2, 11))), []float64{0}, []float64{1.85}},
		{"parallel, serial, parallel", phaseBatch(3, 2), steps(step, concat(repeat(2, 5), repeat(1, 15), repeat(2, 10))), []float64{0.5}, []float64{2}},
		// A burst of GC workers (two steps) and a runtime thread holding
		// a P while the kernel runs others (three steps) stay inside.
		{"bursts", phaseBatch(3, 2), steps(step, concat(repeat(1, 4), repeat(2, 2), repeat(1, 6), repeat(2, 3), repeat(1, 5), repeat(2, 10))), []float64{0}, []float64{2}},
		// One thread on a quarter of a core waiting the rest: one core's
		// work; two such threads: two.
		{"busy machine", phaseBatch(3, 2), steps(step, concat(repeat(0.25, 18), repeat(0.5, 12)), concat(repeat(0.75, 18), repeat(1.5, 12))), []float64{0}, []float64{1.8}},
		// Go scheduler traces of serialphase beside a load of 20 on 2
		// cores: the runtime's threads hold the second P in up to 40% of
		// the serial phase's steps, in runs of up to three.
		{"noisy start", phaseBatch(3, 2), steps(step, concat([]float64{1, 2, 2, 2, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 2, 1}, repeat(2, 14))), []float64{0}, []float64{1.6}},
		{"noisy end", phaseBatch(3, 2), steps(step, concat([]float64{2, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1}, repeat(2, 13))), []float64{0.1}, []float64{1.7}},
		// A parallel phase's one serial-looking step beyond the fit's reach
		// (a second) stays out.
		{"parallel blip", phaseBatch(4, 2), steps(step, concat(repeat(1, 15), repeat(2, 12), []float64{1}, repeat(2, 12))), []float64{0}, []float64{1.5}},
		{"two phases", phaseBatch(4, 2), steps(step, concat(repeat(1, 10), repeat(2, 12), repeat(1, 13), repeat(2, 5))), []float64{2.2, 0}, []float64{3.5, 1}},
		{"parallel", phaseBatch(3, 2), steps(step, repeat(2, 30)), nil, nil},
		{"asleep", phaseBatch(3, 2), steps(step, repeat(0.05, 30)), nil, nil},
		{"short", phaseBatch(3, 2), steps(step, concat(repeat(2, 13), repeat(1, 4), repeat(2, 13))), nil, nil},
		{"one core", phaseBatch(3, 1), steps(step, repeat(1, 30)), nil, nil},
	} {
		got := SerialPhases(c.b, c.tl)
		if len(got) != len(c.from) {
			t.Errorf("%s: phases %+v; want from %v to %v", c.name, got, c.from, c.to)
			continue
		}
		for i, ph := range got {
			if !within(ph.From, c.from[i], step/2) || !within(ph.To, c.to[i], step/2) {
				t.Errorf("%s: phase %d %+v; want from %g to %g", c.name, i, ph, c.from[i], c.to[i])
			}
		}
	}
}

// TestSerialPhaseFinding: the finding says the phase's span, its share of
// the wall time, the cores it used of those it could use and what
// spreading it would save (Amdahl), and names the user function that ran
// in it, from the code of its span only.
func TestSerialPhaseFinding(t *testing.T) {
	b := phaseBatch(3, 2)
	tl := steps(0.1, concat(repeat(1, 18), repeat(2, 12)))
	var asked [2]float64
	code := func(from, to float64) ([]runfmt.HotFunc, string) {
		asked = [2]float64{from, to}
		return []runfmt.HotFunc{{Function: "crypto/sha256.block", CumPct: 90},
			{Function: "main.chainDigest", UserCode: true, CumPct: 97, AttributedSample: "crypto/sha256.Sum256",
				Lines: []runfmt.SourceLine{{File: "main.go", Line: 63, Pct: 100}}}}, ""
	}
	fs := SerialPhaseFindings(nil, b, tl, code)
	if len(fs) != 1 || fs[0].Kind != runfmt.FindingSerialPhase {
		t.Fatalf("findings %+v; want one serial phase", fs)
	}
	f := fs[0]
	if !within(asked[0], 0, 1e-9) || !within(asked[1], 1.8, 0.05) {
		t.Errorf("code asked for %v; want the phase's span", asked)
	}
	if s, saved := f.Figures[runfmt.FigShare], f.Figures[runfmt.FigSavedTime]; !within(s, 0.6, 0.02) || !within(saved, f.Figures[runfmt.FigPhaseTo]/2, 1e-9) {
		t.Errorf("share %g, saved %g s; want 0.6 and half the phase", s, saved)
	}
	w := prose.Wording(&f)
	title, detail := w.Title.Text(), w.Detail.Text()
	for _, want := range []string{"serial phase: 60% of the wall time on 1 of 2 cores (0.00 s to 1.80 s)"} {
		if title != want {
			t.Errorf("title %q; want %q", title, want)
		}
	}
	for _, want := range []string{"From 0.00 s to 1.80 s of its 3.00 s", "of the 2 cores it could use (host 2, cpuset 2, GOMAXPROCS 2)",
		"main.chainDigest does 97% of its CPU in it (most in crypto/sha256.Sum256 under it)", "save up to 0.90 s, 30% of the wall time",
		"runtime.GOMAXPROCS(0) goroutines"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	if names := f.Names(); len(names) == 0 || names[0] != "main.chainDigest" || len(f.Lines) != 1 {
		t.Errorf("names %v, lines %+v; want main.chainDigest and its line", names, f.Lines)
	}
	none := SerialPhaseFindings(nil, b, tl, func(float64, float64) ([]runfmt.HotFunc, string) {
		return nil, "no CPU profile was taken (--profiler none)"
	})
	if d := prose.Wording(&none[0]).Detail.Text(); !strings.Contains(d, "The code that ran in it is not known: no CPU profile was taken (--profiler none).") {
		t.Errorf("detail without a profile %q", d)
	}
}

// TestSerialPhaseAndWholeRun: phases that cover almost all of the run
// leave the whole run's serial finding alone; a phase of part of it comes
// first, the whole run's finding after it.
func TestSerialPhaseAndWholeRun(t *testing.T) {
	code := func(float64, float64) ([]runfmt.HotFunc, string) { return nil, "" }
	whole := []runfmt.Finding{{Kind: runfmt.FindingSerial}, {Kind: runfmt.FindingCPUContention}}
	b := phaseBatch(3, 2)
	if fs := SerialPhaseFindings(whole, b, steps(0.1, repeat(1, 30)), code); !slices.Equal(kinds(fs), kinds(whole)) {
		t.Errorf("serial throughout: %v; want %v", kinds(fs), kinds(whole))
	}
	want := []runfmt.FindingKind{runfmt.FindingSerialPhase, runfmt.FindingSerial, runfmt.FindingCPUContention}
	if fs := SerialPhaseFindings(whole, b, steps(0.1, concat(repeat(1, 20), repeat(2, 10))), code); !slices.Equal(kinds(fs), want) {
		t.Errorf("serial in part: %v; want %v", kinds(fs), want)
	}
	if whole[0].Kind != runfmt.FindingSerial {
		t.Errorf("the findings given were changed: %v", kinds(whole))
	}
}
