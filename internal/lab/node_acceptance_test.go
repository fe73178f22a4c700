package lab

// Acceptance tests of node's lines: nodeinline's summarize spends its time
// on its loop's line (server.js:26), in a helper V8 inlines into it; a run
// must name that line, not only the function's declaration (line 22), and
// V8's profiler must cost the service little beside perf's.

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// nodeinlineService is the config of nodeinline --mode buggy, profiled as
// choice says; the test skips without node.
func nodeinlineService(t *testing.T, choice ProfilerChoice) Config {
	t.Helper()
	bin := labtest.NeedTool(t, "node", "")
	addr := labtest.FreeAddr(t)
	path, _ := filepath.Abs("../../testdata/services/nodeinline/server.js")
	cfg := acceptanceConfig(t, addr, "/summary", bin, path, "--addr", addr, "--mode", "buggy")
	cfg.Profiler = choice
	cfg.Load.Duration, cfg.Warmup = 3*time.Second, time.Second
	return cfg
}

func TestAcceptanceNodeHotLine(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a node service under load")
	}
	r, dir := runAcceptance(t, nodeinlineService(t, ""))
	if r.Profiling == nil || !slices.ContainsFunc(r.Profiling.Processes, func(p runfmt.ProcessProfile) bool { return p.Profiler == runfmt.ProfilerV8 }) {
		t.Fatalf("node was not sampled by V8's profiler: %+v", r.Profiling)
	}
	l, err := analysis.ListFile(filepath.Join(dir, "profiles", "cpu.pb.gz"), "^summarize$", analysis.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.NoLines || len(l.Funcs) != 1 {
		t.Fatalf("perflab list summarize: %d functions, no lines %v", len(l.Funcs), l.NoLines)
	}
	f := l.Funcs[0]
	flat := map[int64]int64{}
	for _, ln := range f.Lines {
		flat[ln.Line] = ln.Flat
		t.Logf("server.js:%d flat %d cum %d  %s", ln.Line, ln.Flat, ln.Cum, ln.Text)
	}
	for line, v := range flat {
		if line != 26 && v >= flat[26] {
			t.Errorf("perflab list summarize: line %d has %d, the loop's line 26 %d: want line 26 the hottest", line, v, flat[26])
		}
	}
	if flat[26] < f.Flat/3 {
		t.Errorf("perflab list summarize: line 26 has %d of summarize's %d: want a third or more", flat[26], f.Flat)
	}
}

// TestAcceptanceNodeProfilerCost runs nodeinline profiled by V8's
// profiler, by perf and not at all, in turns, and compares the medians:
// the profiler's own CPU over the service's (the sampling cost) and the
// service's CPU per request, where V8's interruptions of the JavaScript
// thread show. V8's sampling cost must stay under 5%.
func TestAcceptanceNodeProfilerCost(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a node service nine times under load")
	}
	const rounds = 3
	labtest.NeedTool(t, "perf", "")
	choices := []ProfilerChoice{ProfilerChoice(runfmt.ProfilerV8), ProfilerChoice(runfmt.ProfilerPerf), "none"}
	overhead, cpuMs := map[ProfilerChoice][]float64{}, map[ProfilerChoice][]float64{}
	for range rounds {
		for _, c := range choices {
			r, _ := runAcceptance(t, nodeinlineService(t, c))
			if r.Target == nil {
				t.Fatalf("%s: no service CPU measured", c)
			}
			cpuMs[c] = append(cpuMs[c], r.Target.CPUMsPerRequest)
			if r.Profiling != nil {
				overhead[c] = append(overhead[c], r.Profiling.ProfilerOverhead)
			}
		}
	}
	for _, c := range choices {
		t.Logf("%-5s sampling cost median %.2f%% %v, CPU per request median %.2f ms %v", c, 100*median(overhead[c]), overhead[c], median(cpuMs[c]), cpuMs[c])
	}
	v8 := ProfilerChoice(runfmt.ProfilerV8)
	if len(overhead[v8]) != rounds || median(overhead[v8]) <= 0 {
		t.Fatalf("V8's sampling cost not measured: %v", overhead[v8])
	}
	if m := median(overhead[v8]); m >= 0.05 {
		t.Errorf("V8's sampling cost: median %.2f%% of the service's CPU; want under 5%%", 100*m)
	}
}

// median is the median of xs, 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
