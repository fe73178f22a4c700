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

// goroutineRule reports a goroutine count that grew during the window, and
// where the new goroutines are parked.
var goroutineRule = oneKind(runfmt.FindingGoroutineGrowth, goroutineGrowth, goroutineTitle, goroutineDetail, advices{
	runfmt.AdviceFixLeak: fixed("A count that keeps growing under steady load is a leak: goroutines blocked on a channel, lock or connection that never completes."),
})

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

// "goroutines grew from 12 to 512: most in main.worker"
func goroutineTitle(v view, p *Prose) {
	p.say("goroutines grew from %v to %v", v.fig(runfmt.FigGoroutinesStart), v.fig(runfmt.FigGoroutinesEnd))
	if c := v.culprit(); c.Function != "" {
		p.say(": most in %v", code(c.Function))
	}
}

func goroutineDetail(v view, p *Prose) {
	p.say("The target had %v goroutines at the start of the window and %v at the end; the new ones: ", v.fig(runfmt.FigGoroutinesStart), v.fig(runfmt.FigGoroutinesEnd))
	fs := v.f.Evidence.Functions
	p.join("; ", len(fs), func(i int) {
		p.say("%v +%v", code(fs[i].Function), efig(fs[i], runfmt.FigGoroutinesAdded))
		if fs[i].Callee != "" {
			p.say(" (parked in %v)", code(fs[i].Callee))
		}
	})
	p.words(".")
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
