package profiling

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func TestDefaultRates(t *testing.T) {
	for _, tc := range []struct {
		tool   runfmt.Profiler
		window time.Duration
		perfHz int
		want   int
	}{
		{runfmt.ProfilerPySpy, 10 * time.Second, 0, 19}, // the default window
		{runfmt.ProfilerRbSpy, 60 * time.Second, 0, 19},
		{runfmt.ProfilerPySpy, 5 * time.Second, 0, 49}, // 29 Hz would take 145 ticks
		{runfmt.ProfilerPySpy, 3 * time.Second, 0, 99},
		{runfmt.ProfilerPySpy, time.Second, 0, 99}, // as fast as it goes
		{runfmt.ProfilerPerf, 3 * time.Second, 0, 99},
		{runfmt.ProfilerAsyncProfiler, 3 * time.Second, 0, capture.DefaultAsyncProfilerHz},
		{runfmt.ProfilerPprof, 3 * time.Second, 0, 100},
		{runfmt.ProfilerPySpy, 3 * time.Second, 7, 7}, // --perf-hz sets them all
		{runfmt.ProfilerPerf, 10 * time.Second, 7, 7},
	} {
		pr, ok := Default().find(tc.tool)
		if !ok {
			t.Fatalf("%s: not in the registry", tc.tool)
		}
		if got := pr.rate(tc.perfHz, tc.window); got != tc.want {
			t.Errorf("%s over %s (--perf-hz %d): %d Hz; want %d", tc.tool, tc.window, tc.perfHz, got, tc.want)
		}
	}
}

// TestDefaultRegistry: each of runfmt's profilers has one row, complete,
// and each runtime gets its own profiler, perf for those without one.
func TestDefaultRegistry(t *testing.T) {
	if _, err := NewRegistry(perflabProfilers...); err != nil {
		t.Fatal(err)
	}
	for _, name := range runfmt.Profilers.List() {
		pr, ok := Default().find(name)
		if !ok || pr.Name != name {
			t.Errorf("profiler %s: no row in the registry", name)
			continue
		}
		if pr.Install == "" || pr.rate(0, 10*time.Second) <= 0 {
			t.Errorf("%s: install hint %q, rate %d Hz; want both", name, pr.Install, pr.rate(0, 10*time.Second))
		}
	}
	if got, want := Default().Names(), runfmt.Profilers.List(); len(got) != len(want) {
		t.Errorf("%d rows (%v) for %d profilers", len(got), got, len(want))
	}
	want := map[runfmt.Runtime]runfmt.Profiler{
		runfmt.RuntimePython: runfmt.ProfilerPySpy, runfmt.RuntimeRuby: runfmt.ProfilerRbSpy,
		runfmt.RuntimeGo: runfmt.ProfilerPerf, runfmt.RuntimeNode: runfmt.ProfilerV8,
		runfmt.RuntimeJVM: runfmt.ProfilerAsyncProfiler, runfmt.RuntimeNative: runfmt.ProfilerPerf,
	}
	for rt, name := range want {
		if got := Default().forRuntime(rt).Name; got != name {
			t.Errorf("forRuntime(%s) = %s; want %s", rt, got, name)
		}
	}
	for _, tc := range []struct {
		rts  []runfmt.Runtime
		want runfmt.Profiler
	}{
		{nil, runfmt.ProfilerPerf},
		{[]runfmt.Runtime{runfmt.RuntimeNode}, runfmt.ProfilerV8},
		{[]runfmt.Runtime{runfmt.RuntimeNode, runfmt.RuntimeNative}, runfmt.ProfilerV8},
		{[]runfmt.Runtime{runfmt.RuntimeRuby, runfmt.RuntimeNative}, runfmt.ProfilerRbSpy},
		{[]runfmt.Runtime{runfmt.RuntimeRuby, runfmt.RuntimePython}, runfmt.ProfilerPySpy}, // the registry's order
	} {
		rts := map[runfmt.Runtime]bool{}
		for _, rt := range tc.rts {
			rts[rt] = true
		}
		if got := Default().forRuntimes(rts).Name; got != tc.want {
			t.Errorf("forRuntimes(%v) = %s; want %s", tc.rts, got, tc.want)
		}
	}
	if e := Default().endpointProfiler(); e == nil || e.Name != runfmt.ProfilerPprof {
		t.Errorf("the endpoint profiler is %v; want pprof", e)
	}
	snap := map[runfmt.Runtime]runfmt.StackSource{runfmt.RuntimePython: runfmt.StackSourcePySpy, runfmt.RuntimeRuby: runfmt.StackSourceRbSpy, runfmt.RuntimeJVM: runfmt.StackSourceJcmd}
	for _, rt := range runfmt.Runtimes.List() {
		if s := (*Set)(nil).Snapshotter(rt); (s != nil) != (snap[rt] != "") {
			t.Errorf("the stuck stacks of a %s process: read by a profiler %t; want %t", rt, s != nil, snap[rt] != "")
		}
	}
}

// recorderOnly records nothing: a Recorder with no other behaviour.
type recorderOnly struct{}

func (recorderOnly) Record(context.Context, Job) (*profile.Profile, time.Duration, error) {
	return nil, 0, nil
}

// TestRegistryRefusesIncompleteProfilers: a descriptor without a name, an
// install hint, a rate or a Recorder, one whose fields promise what its
// Recorder does not do, and a name taken twice are refused, naming the
// profiler; the default registry is not changed by With.
func TestRegistryRefusesIncompleteProfilers(t *testing.T) {
	ok := Profiler{Name: "yourkit", Install: "unpack yourkit", Runtimes: []runfmt.Runtime{runfmt.RuntimeJVM}, Hz: 100, Recorder: recorderOnly{}}
	for _, tc := range []struct {
		change func(*Profiler)
		want   string
	}{
		{func(p *Profiler) { p.Name = "" }, `profiler "": unknown profiler`},
		{func(p *Profiler) { p.Name = "Your Kit" }, `unknown profiler "Your Kit"`},
		{func(p *Profiler) { p.Name = "auto" }, "--profiler's choice"},
		{func(p *Profiler) { p.Install = "" }, "yourkit: no install hint"},
		{func(p *Profiler) { p.Hz = 0 }, "yourkit: no sampling rate"},
		{func(p *Profiler) { p.Recorder = nil }, "yourkit: no Recorder"},
		{func(p *Profiler) { p.Gives.Waits = true }, "yourkit gives waits"},
		{func(p *Profiler) { p.Gives.Snapshot = true }, "yourkit gives snapshots"},
		{func(p *Profiler) { p.Sampling.Endpoint = true }, "yourkit samples through an endpoint"},
		{func(p *Profiler) { p.Name = runfmt.ProfilerPerf }, "perf: registered twice"},
	} {
		pr := ok
		tc.change(&pr)
		if _, err := Default().With(&pr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want an error with %q", pr, err, tc.want)
		}
	}
	reg, err := Default().With(&ok)
	if err != nil {
		t.Fatal(err)
	}
	if names := reg.Names(); !slices.Contains(names, "yourkit") || slices.Contains(Default().Names(), "yourkit") {
		t.Errorf("names %v, default %v; want yourkit in the new registry only", names, Default().Names())
	}
	ok.Runtimes[0] = runfmt.RuntimeRuby // the registry keeps its own copy
	if pr, _ := reg.find("yourkit"); !pr.serves(runfmt.RuntimeJVM) || pr.serves(runfmt.RuntimeRuby) {
		t.Errorf("yourkit serves %v after its descriptor changed; want jvm", pr.Runtimes)
	}
}

// TestAutoReadsTheFields: a profiler registered for a runtime is chosen
// for its processes over perf, which serves them too; of two that name a
// runtime, the one that gives lines; the choice reads the descriptors,
// whatever their names.
func TestAutoReadsTheFields(t *testing.T) {
	goOne := &Profiler{Name: "go-sampler", Install: "nothing", Runtimes: []runfmt.Runtime{runfmt.RuntimeGo}, Hz: 100, Recorder: recorderOnly{}}
	reg, err := Default().With(goOne)
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.forRuntime(runfmt.RuntimeGo).Name; got != "go-sampler" {
		t.Errorf("a Go process is sampled with %s; want go-sampler", got)
	}
	if got := reg.forRuntimes(map[runfmt.Runtime]bool{runfmt.RuntimeGo: true, runfmt.RuntimeNative: true}).Name; got != "go-sampler" {
		t.Errorf("a Go service is sampled with %s; want go-sampler", got)
	}
	if got := reg.forRuntime(runfmt.RuntimeNative).Name; got != runfmt.ProfilerPerf {
		t.Errorf("a native process is sampled with %s; want perf", got)
	}
	lines := &Profiler{Name: "py-lines", Install: "nothing", Runtimes: []runfmt.Runtime{runfmt.RuntimePython}, Hz: 100, Gives: Gives{Lines: true}, Recorder: recorderOnly{}}
	noLines := &Profiler{Name: "py-nolines", Install: "nothing", Runtimes: []runfmt.Runtime{runfmt.RuntimePython}, Hz: 100, Recorder: recorderOnly{}}
	reg, err = NewRegistry(noLines, lines, &perf)
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.forRuntime(runfmt.RuntimePython).Name; got != "py-lines" {
		t.Errorf("a Python process is sampled with %s; want py-lines, which gives lines", got)
	}
}

// TestInstalledAsksTheDescriptor: async-profiler is no binary on PATH;
// its library is looked for where it says; V8's is inside the service.
func TestInstalledAsksTheDescriptor(t *testing.T) {
	t.Setenv(asyncLibEnv, filepath.Join(t.TempDir(), "libasyncProfiler.so"))
	if err := asyncProfiler.installed(); err == nil || !strings.Contains(err.Error(), asyncLibEnv) {
		t.Errorf("a missing library: %v; want an error naming %s", err, asyncLibEnv)
	}
	if err := v8.installed(); err != nil {
		t.Errorf("V8's profiler: %v; want nothing to install", err)
	}
	labtest.NeedTool(t, "jcmd", "")
	lib := filepath.Join(t.TempDir(), "libasyncProfiler.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(asyncLibEnv, lib)
	if err := asyncProfiler.installed(); err != nil {
		t.Errorf("library at %s: %v", lib, err)
	}
	if err := (&Profiler{Name: "no-such-profiler-binary"}).installed(); err == nil {
		t.Error("a binary not on PATH is installed")
	}
}
