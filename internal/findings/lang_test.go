package findings

import (
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestFindingsAdviceFitsTheLanguage: the same waiting service gets Go's
// advice (mutex and block profiles, GOMAXPROCS) only when it is Go.
func TestFindingsAdviceFitsTheLanguage(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.render", 1e9).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 50}}
	target := &runfmt.TargetSummary{CPUCoresMean: 0.1, CPULimitCores: 2, CPUMsPerRequest: 1}
	for _, tc := range []struct {
		runtime   runfmt.Runtime
		want, not string
	}{
		{"", "mutex and block profiles", "gunicorn"},
		{"go", "mutex and block profiles", "gunicorn"},
		{"python", "gunicorn -w", "mutex and block"},
		{"ruby", "puma -w", "GOMAXPROCS"},
		{"node", "event loop", "mutex and block"},
	} {
		fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: target, Runtime: tc.runtime})
		off := findKind(fs, runfmt.FindingOffCPU)
		if len(off) != 1 || !strings.Contains(detail(off[0]), tc.want) || strings.Contains(detail(off[0]), tc.not) {
			t.Errorf("runtime %q: off-cpu finding %+v; want advice with %q, without %q", tc.runtime, off, tc.want, tc.not)
		}
	}
	contended := *target
	contended.RunqueueWaitSeconds = 40
	fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: &contended, Runtime: "python"})
	if c := findKind(fs, runfmt.FindingCPUContention); len(c) != 1 || strings.Contains(detail(c[0]), "GOMAXPROCS") || !strings.Contains(detail(c[0]), "fewer workers") {
		t.Errorf("python cpu-contention finding %+v; want one, with fewer workers and without GOMAXPROCS", c)
	}
}
