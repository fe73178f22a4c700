package profiling

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		{runfmt.ProfilerPySpy, 3 * time.Second, 7, 7}, // --perf-hz sets them all
		{runfmt.ProfilerPerf, 10 * time.Second, 7, 7},
	} {
		pr, ok := find(tc.tool)
		if !ok {
			t.Fatalf("%s: not in the table", tc.tool)
		}
		if got := rate(pr, tc.perfHz, tc.window); got != tc.want {
			t.Errorf("%s over %s (--perf-hz %d): %d Hz; want %d", tc.tool, tc.window, tc.perfHz, got, tc.want)
		}
	}
}

// TestTableServesEveryProfiler: each of runfmt's profilers has one row,
// and each runtime gets its own profiler, perf for those without one.
func TestTableServesEveryProfiler(t *testing.T) {
	for _, name := range runfmt.Profilers() {
		pr, ok := find(name)
		if !ok || pr.Name() != name {
			t.Errorf("profiler %s: no row in the table", name)
			continue
		}
		if pr.Install() == "" || pr.Rate(10*time.Second) <= 0 {
			t.Errorf("%s: install hint %q, rate %d Hz; want both", name, pr.Install(), pr.Rate(10*time.Second))
		}
	}
	if len(profilers) != len(runfmt.Profilers()) {
		t.Errorf("%d rows for %d profilers", len(profilers), len(runfmt.Profilers()))
	}
	want := map[runfmt.Runtime]runfmt.Profiler{
		runfmt.RuntimePython: runfmt.ProfilerPySpy, runfmt.RuntimeRuby: runfmt.ProfilerRbSpy,
		runfmt.RuntimeGo: runfmt.ProfilerPerf, runfmt.RuntimeNode: runfmt.ProfilerV8,
		runfmt.RuntimeJVM: runfmt.ProfilerAsyncProfiler, runfmt.RuntimeNative: runfmt.ProfilerPerf,
	}
	for rt, name := range want {
		if got := forRuntime(rt).Name(); got != name {
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
		{[]runfmt.Runtime{runfmt.RuntimeRuby, runfmt.RuntimePython}, runfmt.ProfilerPySpy}, // the table's order
	} {
		rts := map[runfmt.Runtime]bool{}
		for _, rt := range tc.rts {
			rts[rt] = true
		}
		if got := forRuntimes(rts).Name(); got != tc.want {
			t.Errorf("forRuntimes(%v) = %s; want %s", tc.rts, got, tc.want)
		}
	}
	if e := endpointProfiler(); e == nil || e.Name() != runfmt.ProfilerPprof {
		t.Errorf("the endpoint profiler is %v; want pprof", e)
	}
}

// TestInstalledAsksALocator: async-profiler is no binary on PATH; its
// library is looked for where it says.
func TestInstalledAsksALocator(t *testing.T) {
	t.Setenv(asyncLibEnv, filepath.Join(t.TempDir(), "libasyncProfiler.so"))
	if err := installed(string(runfmt.ProfilerAsyncProfiler)); err == nil || !strings.Contains(err.Error(), asyncLibEnv) {
		t.Errorf("a missing library: %v; want an error naming %s", err, asyncLibEnv)
	}
	labtest.NeedTool(t, "jcmd", "")
	lib := filepath.Join(t.TempDir(), "libasyncProfiler.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(asyncLibEnv, lib)
	if err := installed(string(runfmt.ProfilerAsyncProfiler)); err != nil {
		t.Errorf("library at %s: %v", lib, err)
	}
	if err := installed("no-such-profiler-binary"); err == nil {
		t.Error("a binary not on PATH is installed")
	}
}
