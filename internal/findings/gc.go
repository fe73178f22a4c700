package findings

import (
	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// gcNotablePct is the GC share of the CPU (in percent) from which the GC
// is a finding (report.html highlights the GC's card when the run has
// the finding).
const gcNotablePct = 10.0

// gcFinding reports a garbage collector taking a notable share of the CPU
// (gcNotablePct), with the user functions that allocate most per
// request.
func gcFinding(c *context) []ranked {
	in, cpu := c.in, c.cpu
	share, src := 0.0, ""
	switch {
	case in.GC != nil:
		share, src = in.GC.CPUPct/100, in.GC.CPUPctSource
		if src == "" {
			src = runfmt.SourceGCTrace
		}
	case cpu.Costs != nil:
		share, src = cpu.GCShare(), runfmt.SourceCPUProfile
	}
	if 100*share < gcNotablePct {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingGC, Advice: runfmt.AdviceAllocateLess, Figures: runfmt.Figures{runfmt.FigShare: share}}
	gogc := "100"
	if in.GC != nil && in.GC.GOGC != "" {
		gogc = in.GC.GOGC
	}
	f.Settings = f.Settings.With(runfmt.SettingSource, src).With(runfmt.SettingGOGC, gogc)
	if cpu.UsPerRequest > 0 {
		f.Figures[runfmt.FigCPUPerRequest] = cpu.Us(share)
	}
	if g := in.GC; g != nil {
		if g.AllocMiBPerS > 0 {
			f.Figures[runfmt.FigAllocRate] = g.AllocMiBPerS * mib
		}
		if g.Count > 0 {
			f.Figures[runfmt.FigCollections], f.Figures[runfmt.FigHeapPeak] = float64(g.Count), g.HeapMaxMiB*mib
		}
	}
	allocators(c, &f)
	return []ranked{{f: f, rank: share}}
}

// allocators names the user functions that allocate most per request,
// by the bytes they allocate (the collector's work grows with them),
// each with the call it allocates in: from the allocation profile, else
// by CPU spent allocating.
func allocators(c *context, f *runfmt.Finding) {
	in := c.in
	if in.Allocs != nil && in.Requests > 0 {
		sites, _ := analysis.AllocSites(in.Allocs, in.Requests, 3, in.UserCode)
		for _, a := range sites {
			f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleAllocator, Function: a.Function, File: a.File, Callee: a.Callee,
				Figures: runfmt.Figures{runfmt.FigBytesPerRequest: a.BytesPerRequest, runfmt.FigObjectsPerRequest: a.ObjectsPerRequest}})
		}
		f.Figures[runfmt.FigBytesPerRequest] = allocBytesPerRequest(in)
		return
	}
	if in.Allocs == nil && c.cpu.Costs != nil {
		for _, name := range c.cpu.mallocCallers(3) {
			f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleAllocator, Function: name})
		}
	}
}

// mib is the runtime's "MB" (gctrace, run.json's _mb fields) in bytes.
const mib = 1 << 20

// allocBytesPerRequest is the bytes the service allocated per request,
// perflab's measuring left out.
func allocBytesPerRequest(in FindingInput) float64 {
	b, _ := analysis.AllocsPerRequest(in.Allocs, in.Requests)
	return b
}

// mallocCallers names up to n user functions with the most CPU spent in
// runtime.mallocgc below them.
func (v *cpuView) mallocCallers(n int) []string {
	s := v.Costs.Set()
	isMalloc := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		isMalloc[i] = f.Name == "runtime.mallocgc"
	}
	c := analysis.NewCosts(s, v.Costs.SampleIndex(), v.UserCode, func(st []int32) bool {
		for _, f := range st {
			if isMalloc[f] {
				return true
			}
		}
		return false
	})
	var names []string
	for _, f := range c.Ranked(true, n) {
		names = append(names, s.Funcs[f].Name)
	}
	return names
}
