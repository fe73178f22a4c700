package findings

import (
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
