package findings

import (
	"cmp"
	"slices"

	"perflab/internal/runfmt"
)

// exclusiveCPU gives each finding whose stacks are known the part of its
// CPU no finding with more CPU counts too (runfmt.FigExclusiveCPU): a
// constructor's finding and those of the helpers it calls, or a category
// of library work and the function it runs under, count some stacks
// twice, and what fixing them saves together is their union. The
// costliest claims its stacks first.
func exclusiveCPU(found []ranked, v *cpuView) {
	if v.Costs == nil || v.UsPerRequest <= 0 {
		return
	}
	var order []int
	for i, r := range found {
		if r.region != nil && r.f.Figures[runfmt.FigCPUPerRequest] > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(found[b].f.Figures[runfmt.FigCPUPerRequest], found[a].f.Figures[runfmt.FigCPUPerRequest])
	})
	s, vi := v.Costs.Set(), v.Costs.SampleIndex()
	claimed := map[int]bool{}
	for _, i := range order {
		var own int64
		for _, si := range found[i].region {
			if !claimed[si] {
				claimed[si] = true
				own += s.Value(si, vi)
			}
		}
		found[i].f.Figures[runfmt.FigExclusiveCPU] = v.Us(v.Share(own))
	}
}
