package findings

import (
	"math"

	"perflab/internal/analysis"
	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

// Thresholds of the owner rule.
const (
	ownerCalleesListed = 4    // callees an owner finding names
	ownerCalleeMin     = 0.01 // a callee's least share of the CPU to be named
	ownerLibraryMin    = 0.05 // the biggest library callee's, to be named
	ownerMostly        = 0.5  // of the owner's cost: "mostly in" that callee
	// costlyUserShare: every user function charged this share of the CPU
	// (its own code and the libraries under it) gets a finding, beyond
	// the hotUserMaxListed owners.
	costlyUserShare = 0.10
)

// ownerFindings name the functions that own the most CPU (see
// analysis.Owner), ranked by their inclusive cost per request, each with
// the callees its cost is spread over; owners whose cost category
// findings already explain are left to those.
func ownerFindings(c *context) []ranked {
	v := c.cpu
	if v.Costs == nil || v.Costs.Total() == 0 {
		return nil
	}
	explained := map[string]float64{}
	for _, r := range c.found {
		if e, ok := r.f.Culprit(); ok && r.f.Kind != runfmt.FindingCPUBound && r.f.Kind != runfmt.FindingGC {
			explained[e.Function] += r.f.Figures[runfmt.FigShare]
		}
	}
	var out []ranked
	for _, o := range v.Costs.Owners(hotUserMaxListed+len(explained), hotUserMinShare) {
		if len(out) == hotUserMaxListed {
			break
		}
		sh := v.Share(o.Cum)
		if explained[v.Costs.Name(o.Func)] >= coveredByCategory*sh {
			continue
		}
		out = append(out, ranked{f: v.ownerFinding(o), rank: sh, region: o.Stacks})
	}
	return overCounted(append(out, costlyUserFindings(c, out, explained)...), c.in)
}

// overCounted marks the user-function findings uncertain when the
// profile's samples stood for far more CPU than was measured
// (answer.OverCounted): a sampler that reads stacks at every tick (py-spy,
// rbspy, V8) counted threads waiting for a CPU as running, and those
// samples fall on the code that runs right after a wait.
func overCounted(found []ranked, in FindingInput) []ranked {
	if in.Ledger == nil || in.Ledger.CPU == nil || in.Ledger.CPU.ProfiledMs == nil ||
		!answer.OverCounted(*in.Ledger.CPU.ProfiledMs, in.Ledger.CPU.SampledMs()) {
		return found
	}
	over := *in.Ledger.CPU.ProfiledMs / in.Ledger.CPU.SampledMs()
	for i := range found {
		found[i].f.Figures[runfmt.FigOverCounted] = math.Round(over*10) / 10
	}
	return found
}

// costlyUserFindings names every user function charged costlyUserShare of
// the CPU or more that no owner finding and no category finding names
// first: two endpoints' handlers each get theirs.
func costlyUserFindings(c *context, owners []ranked, explained map[string]float64) []ranked {
	v := c.cpu
	named := map[string]bool{}
	for _, r := range owners {
		if e, ok := r.f.Culprit(); ok {
			named[e.Function] = true
		}
	}
	var out []ranked
	for _, f := range v.Costs.Ranked(true, 0) {
		sh := v.Share(v.Costs.Charged(f))
		if sh < costlyUserShare {
			break // ranked by Charged: none after it reaches the share
		}
		name := v.Costs.Name(f)
		if named[name] || explained[name] >= coveredByCategory*sh {
			continue
		}
		named[name] = true
		o := analysis.Owner{Func: f, Path: []int32{f}, Cum: v.Costs.Charged(f), Own: v.Costs.Charged(f), Library: -1}
		if callee, cost := v.Costs.TopCallee(f); callee >= 0 {
			o.Library, o.LibraryCost = callee, cost
		}
		out = append(out, ranked{f: v.ownerFinding(o), rank: sh, region: v.chargedStacks(f)})
	}
	return out
}

// chargedStacks are the stacks whose cost is charged to user function f.
func (v *cpuView) chargedStacks(f int32) []int {
	var out []int
	for si := range v.Costs.Set().NumStacks() {
		if v.Costs.ChargedTo(si) == f {
			out = append(out, si)
		}
	}
	return out
}

// ownerFinding is one owner with the callees its cost is spread over, or
// the library call it mostly goes to, and the path that reached it.
func (v *cpuView) ownerFinding(o analysis.Owner) runfmt.Finding {
	s := v.Costs.Set()
	fn := func(role runfmt.Role, f int32, figs runfmt.Figures) runfmt.FuncEvidence {
		return runfmt.FuncEvidence{Role: role, Function: s.Funcs[f].Name, File: s.Funcs[f].File, Figures: figs}
	}
	sh := v.Share(o.Cum)
	f := runfmt.Finding{Kind: runfmt.FindingHotUserFunction, Advice: runfmt.AdviceStartHere,
		Figures:  runfmt.Figures{runfmt.FigShare: sh, runfmt.FigCPUPerRequest: v.Us(sh), runfmt.FigOwnShare: v.Share(v.Costs.Flat(o.Func))},
		Settings: runfmt.Settings{runfmt.SettingCost: v.costCounted(o)}}
	culprit := fn(runfmt.RoleCulprit, o.Func, nil)
	if lib, cost := v.Costs.TopLibrary(o.Func); lib != "" && v.Share(cost) >= ownerLibraryMin {
		culprit.Package = lib
		f.Figures[runfmt.FigLibraryShare] = v.Share(cost)
	}
	if db := v.Share(v.Costs.Database(o.Func)); db >= ownerLibraryMin {
		f.Figures[runfmt.FigDatabaseShare] = db
	}
	ev := []runfmt.FuncEvidence{culprit}
	for i, c := range o.Callees {
		if i == ownerCalleesListed || v.Share(c.Cost) < ownerCalleeMin {
			break
		}
		ev = append(ev, fn(runfmt.RoleCallee, c.Func, runfmt.Figures{runfmt.FigShare: v.Share(c.Cost)}))
	}
	callees := len(ev) - 1
	if callees > 0 {
		f.Figures[runfmt.FigOwnShare] = v.Share(o.Own)
	}
	if callees > 1 {
		f.Advice = runfmt.AdviceCacheOrCallees
	}
	if lib := v.Share(o.LibraryCost); o.Library >= 0 {
		figs := runfmt.Figures{runfmt.FigShare: lib, runfmt.FigCPUPerRequest: v.Us(lib)}
		switch {
		case callees == 0 && lib >= ownerMostly*sh:
			ev = append(ev, fn(runfmt.RoleEntry, o.Library, figs)) // its cost goes there
		case lib >= ownerLibraryMin:
			ev = append(ev, fn(runfmt.RoleLibrary, o.Library, figs))
		}
	}
	if h := v.Costs.LibraryHolder(o.Func); h.Entry == o.Library && h.Func >= 0 && h.Func != h.Entry && v.Share(h.Cost) >= ownerLibraryMin {
		lib := v.Share(h.Cost)
		ev = append(ev, fn(runfmt.RoleLibraryFunc, h.Func, runfmt.Figures{runfmt.FigShare: lib, runfmt.FigCPUPerRequest: v.Us(lib)}))
	}
	if len(o.Path) > 1 {
		for _, p := range o.Path {
			ev = append(ev, fn(runfmt.RolePath, p, nil))
		}
	}
	f.Evidence.Functions = ev
	return f
}

// costCounted says what an owner's cost counts (runfmt.SettingCost):
// what is charged to it alone, all it calls, or all it calls but the
// regions of costlier owners.
func (v *cpuView) costCounted(o analysis.Owner) string {
	switch {
	case o.Cum == v.Costs.Charged(o.Func):
		return runfmt.CostOwn
	case o.Cum < v.Costs.Cum(o.Func):
		return runfmt.CostRest
	}
	return runfmt.CostInclusive
}
