package findings

import (
	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// Thresholds of the goroutine-growth rule.
const (
	growthMinFactor = 2.0 // the end count over the start count
	growthMinAbs    = 100 // goroutines added
	growthNamed     = 3   // the functions named
)

// goroutineGrowth reports a goroutine count that grew during the window, and
// where the new goroutines are parked.
func goroutineGrowth(c *context) []ranked {
	in := c.in
	if in.GoroutinesStart == nil || in.GoroutinesEnd == nil {
		return nil
	}
	start, end := goroutineCount(in.GoroutinesStart), goroutineCount(in.GoroutinesEnd)
	if end-start < growthMinAbs || float64(end) < growthMinFactor*float64(start) {
		return nil
	}
	before := chargedByName(in.GoroutinesStart, in.UserCode)
	s := stacks.FromProfile(in.GoroutinesEnd)
	if len(s.SampleTypes) == 0 {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingGoroutineGrowth, Advice: runfmt.AdviceFixLeak,
		Figures: runfmt.Figures{runfmt.FigGoroutinesStart: float64(start), runfmt.FigGoroutinesEnd: float64(end)}}
	cs := analysis.NewCosts(s, len(s.SampleTypes)-1, in.UserCode, nil)
	growth := map[int32]int64{}
	for fn := range s.Funcs {
		if d := cs.Charged(int32(fn)) - before[s.Funcs[fn].Name]; d > 0 {
			growth[int32(fn)] = d
		}
	}
	for i, fn := range analysis.ByCost(growth) {
		if i == growthNamed {
			break
		}
		e := runfmt.FuncEvidence{Role: runfmt.RoleSite, Function: s.Funcs[fn].Name, Figures: runfmt.Figures{runfmt.FigGoroutinesAdded: float64(growth[fn])}}
		if i == 0 {
			e.Role = runfmt.RoleCulprit
		}
		if callee, _ := cs.TopCallee(fn); callee >= 0 {
			e.Callee = s.Funcs[callee].Name
		}
		f.Evidence.Functions = append(f.Evidence.Functions, e)
	}
	rank := 0.5 * float64(end-start) / float64(end)
	return []ranked{{f: f, rank: rank}}
}

// chargedByName is the attributed goroutine count per function name.
func chargedByName(p *profile.Profile, uc analysis.UserCode) map[string]int64 {
	s := stacks.FromProfile(p)
	out := map[string]int64{}
	if len(s.SampleTypes) == 0 {
		return out
	}
	c := analysis.NewCosts(s, len(s.SampleTypes)-1, uc, nil)
	for fn, fi := range s.Funcs {
		out[fi.Name] = c.Charged(int32(fn))
	}
	return out
}

// goroutineCount is the service's goroutines in a goroutine profile,
// perflab's measuring (the handler writing the profile) left out.
func goroutineCount(p *profile.Profile) int64 {
	n, _, _ := analysis.SplitTotal(p, "")
	return n
}
