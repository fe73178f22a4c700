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

// TestCostlyUserFunctionCountsWhatItOwns: a costly user function's finding
// beyond the owners counts the cost charged to it (its own code and the
// library code it calls), says so, and keeps the setting that tells its
// lines to count the same; an owner's counts everything it calls.
func TestCostlyUserFunctionCountsWhatItOwns(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.serve;main.a", 25e6).
		Add("main.serve;main.b;strings.ToLower", 20e6).
		Add("main.serve;main.c", 19e6).
		Add("main.serve;main.d;sort.Strings", 18e6).
		Add("main.serve;main.e", 12e6).
		Add("main.serve;main.small", 6e6).
		Profile()
	fs := Findings(FindingInput{CPU: cpu, Requests: 100, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
	costs := map[string]int{}
	for _, f := range fs {
		if f.Kind != runfmt.FindingHotUserFunction {
			continue
		}
		cost := f.Settings[runfmt.SettingCost]
		costs[cost]++
		own := strings.Contains(detail(f), "including the library and runtime code it calls")
		all := strings.Contains(detail(f), "including everything it calls")
		if cost == runfmt.CostOwn && !own || cost == runfmt.CostInclusive && !all || cost == "" {
			t.Errorf("%s: cost %q, detail %q", title(f), cost, detail(f))
		}
	}
	if costs[runfmt.CostOwn] == 0 || costs[runfmt.CostInclusive] == 0 {
		t.Errorf("hot user function findings by cost %v; want owners (inclusive) and costly functions beyond them (own)", costs)
	}
}
