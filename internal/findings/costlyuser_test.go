package findings

import (
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestEveryCostlyUserFunctionHasAFinding: five user functions each above
// 10% of the CPU, more than the owners the verdict lists: each gets a
// finding naming it first.
func TestEveryCostlyUserFunctionHasAFinding(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.serve;main.a", 25e6).
		Add("main.serve;main.b;strings.ToLower", 20e6).
		Add("main.serve;main.c", 19e6).
		Add("main.serve;main.d;sort.Strings", 18e6).
		Add("main.serve;main.e", 12e6).
		Add("main.serve;main.small", 6e6).
		Profile()
	fs := Findings(FindingInput{CPU: cpu, Requests: 100, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
	culprits := map[string]bool{}
	for _, f := range fs {
		if e, ok := f.Culprit(); ok {
			culprits[e.Function] = true
		}
	}
	for _, fn := range []string{"main.a", "main.b", "main.c", "main.d", "main.e"} {
		if !culprits[fn] {
			t.Errorf("%s (above 10%% of the CPU) has no finding; findings: %v", fn, titles(fs))
		}
	}
}

func titles(fs []runfmt.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, title(f))
	}
	return out
}

// TestHotUserFunctionSaysWhatItsCostCounts: main.build spreads its cost
// over helpers (all it calls), main.digest calls no user code (what is
// charged to it), and main.h keeps its JSON encoding and main.small once
// digest's region is set aside (all it calls but digest): each finding
// keeps what it counts and says it.
func TestHotUserFunctionSaysWhatItsCostCounts(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.serve;main.build;main.helperA", 20e6).
		Add("main.serve;main.build;main.helperB", 20e6).
		Add("main.serve;main.build;main.helperC", 15e6).
		Add("main.serve;main.h;main.digest", 30e6).
		Add("main.serve;main.h;encoding/json.Marshal", 12e6).
		Add("main.serve;main.h;main.small", 3e6).
		Profile()
	want := map[string]struct{ cost, words string }{
		"main.build":  {runfmt.CostInclusive, "including everything it calls"},
		"main.digest": {runfmt.CostOwn, "including the library and runtime code it calls"},
		"main.h":      {runfmt.CostRest, "including what it calls, but not what costlier findings own"},
	}
	seen := 0
	for _, f := range Findings(FindingInput{CPU: cpu, Requests: 100, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}}) {
		e, ok := f.Culprit()
		w, listed := want[e.Function]
		if f.Kind != runfmt.FindingHotUserFunction || !ok || !listed {
			continue
		}
		seen++
		if got := f.Settings[runfmt.SettingCost]; got != w.cost || !strings.Contains(detail(f), w.words) {
			t.Errorf("%s: cost %q, detail %q; want %q, %q", e.Function, got, detail(f), w.cost, w.words)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d functions have a finding", seen, len(want))
	}
}
