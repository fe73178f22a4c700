package profiling

import (
	"errors"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestNotRepresentative(t *testing.T) {
	for _, tc := range []struct {
		profile, measured float64
		samples           int64
		flagged           bool
		unsampled         float64 // start-up of processes started in the window
	}{
		{1.9, 2.0, 190, false, 0}, // perf or pprof: the profile is the CPU
		{5.0, 2.0, 500, false, 0}, // py-spy on a busy machine counts runnable threads: more, not less
		{0.02, 3.6, 2, true, 0},   // the idle master sampled while two workers burned 1.8 cores
		{0.8, 2.0, 80, true, 0},   // 40%: most of the CPU is not in the profile
		{0.0, 0.01, 0, false, 0},  // an idle service: nothing to explain
		{0.0, 0.5, 0, true, 0},    // no samples at all while the service worked
		{1.0, 2.0, 100, false, 0}, // exactly half
		// Recycled workers: 0.8 CPU-s of their start-up before any
		// profiler attached; the profile covers the rest.
		{0.8, 2.0, 80, false, 0.8},
		{0.3, 2.0, 30, true, 0.8}, // a quarter of what could be sampled
		{0.0, 0.5, 0, true, 0.5},  // all start-up, no samples: still nothing to go on
	} {
		pr := &runfmt.Profiling{ProfileCPUSeconds: tc.profile, MeasuredCPUSeconds: tc.measured, UnsampledStartCPUSeconds: tc.unsampled}
		if got := representative(pr); got == tc.flagged {
			t.Errorf("representative(%g of %g CPU-s, %d samples) = %v, want flagged %v", tc.profile, tc.measured, tc.samples, got, tc.flagged)
		}
	}
}

// TestTreeSamplerFallsBackToPerf: with py-spy or rbspy missing, Python
// and Ruby processes are sampled with perf and the note says what to
// install; node keeps V8's profiler, which has no binary to miss; other
// runtimes always get perf.
func TestTreeSamplerFallsBackToPerf(t *testing.T) {
	name := func(pr *Profiler) runfmt.Profiler {
		if pr == nil {
			return ""
		}
		return pr.Name
	}
	ts := &treeSampler{missing: map[string]bool{}, lookTool: func(*Profiler) error { return errors.New("not found") }}
	for rt, want := range map[runfmt.Runtime]runfmt.Profiler{"python": runfmt.ProfilerPerf, "ruby": runfmt.ProfilerPerf, "node": runfmt.ProfilerV8, "go": runfmt.ProfilerPerf, "jvm": runfmt.ProfilerPerf} {
		if got := name(ts.toolFor(rt)); got != want {
			t.Errorf("toolFor(%s) without spies = %s, want %s", rt, got, want)
		}
	}
	notes := strings.Join(ts.notes, "\n")
	for _, want := range []string{"pip install py-spy", "cargo install rbspy", "sampled with perf", "async-profiler is not installed", "-XX:+PreserveFramePointer"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	ts = &treeSampler{missing: map[string]bool{}, lookTool: func(*Profiler) error { return nil }}
	if name(ts.toolFor("python")) != runfmt.ProfilerPySpy || name(ts.toolFor("ruby")) != runfmt.ProfilerRbSpy || name(ts.toolFor("jvm")) != runfmt.ProfilerAsyncProfiler || len(ts.notes) != 0 {
		t.Errorf("with the spies installed: python %s, ruby %s, notes %q", name(ts.toolFor("python")), name(ts.toolFor("ruby")), ts.notes)
	}
	ts = &treeSampler{forced: &pySpy, missing: map[string]bool{}}
	if ts.toolFor("node") != nil || name(ts.toolFor("python")) != runfmt.ProfilerPySpy {
		t.Error("--profiler py-spy must sample the Python processes only")
	}
}
