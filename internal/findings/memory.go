package findings

import "perflab/internal/runfmt"

// Thresholds of the memory-growth rule. gctrace prints whole megabytes,
// so without heap profiles a smaller heap cannot show a trend.
const (
	growthMinMB        = 1.0  // in-use heap growth over the window (heap profiles)
	growthMinShare     = 0.10 // of the heap at the start
	gctraceGrowthMinMB = 4.0  // live heap growth when only gctrace tells
	// gctraceMinCollections is how many collections in the window make
	// gctrace's live heap the judge of whether it grew at all.
	gctraceMinCollections = 3
)

// memoryRule reports a live heap that grew over the window: gctrace's
// live heap after each collection trends up, and the in-use heap profiles
// (after a forced collection at both ends) grew and name the allocation
// sites that retained it.
var memoryRule = oneKind(runfmt.FindingMemoryGrowth, memoryGrowth, memoryTitle, memoryDetail, advices{
	runfmt.AdviceBoundGrowth: fixed("Memory that grows with every request under steady load is a leak (a slice, map or cache that only grows) or a cache still filling: bound it, evict, or stop keeping per-request data."),
})

func memoryGrowth(c *context) []ranked {
	h := c.in.Heap
	if h == nil || h.SlopeMiBPerS <= 0 {
		return nil
	}
	from, to, least, source := h.LiveStartMiB, h.LiveEndMiB, gctraceGrowthMinMB, runfmt.SourceGCTrace
	if h.InuseEndMiB > 0 {
		from, to, least, source = h.InuseStartMiB, h.InuseEndMiB, growthMinMB, runfmt.SourceHeapProfiles
	}
	grew := to - from
	if grew < least || grew < growthMinShare*from {
		return nil
	}
	if h.Collections >= gctraceMinCollections && h.LiveEndMiB-h.LiveStartMiB < growthMinMB {
		// The heap profiles are sampled (one sample per 512 KiB allocated)
		// and a ring or cache that churns moves their in-use figures by
		// megabytes; gctrace's live heap after every collection is exact
		// and says it did not grow.
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingMemoryGrowth, Advice: runfmt.AdviceBoundGrowth, Figures: runfmt.Figures{
		runfmt.FigHeapSlope: h.SlopeMiBPerS * mib, runfmt.FigHeapFrom: from * mib, runfmt.FigHeapTo: to * mib,
		runfmt.FigCollections: float64(h.Collections), runfmt.FigLiveStart: h.LiveStartMiB * mib, runfmt.FigLiveEnd: h.LiveEndMiB * mib,
	}}
	if h.BytesPerRequest != 0 {
		f.Figures[runfmt.FigBytesPerRequest] = h.BytesPerRequest
	}
	f.Settings = f.Settings.With(runfmt.SettingSource, source)
	for i, s := range h.Sites {
		role := runfmt.RoleSite
		if i == 0 {
			role = runfmt.RoleCulprit
		}
		f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: role, Function: s.Function,
			Figures: runfmt.Figures{runfmt.FigBytesPerRequest: s.BytesPerRequest, runfmt.FigHeapSlope: s.MiBPerS * mib}})
	}
	// A growing heap costs no time per request by itself: it ranks by how
	// much of the heap the window added, next to the costs of time.
	return []ranked{{f: f, rank: grew / to}}
}

// "live heap grows 1.2 MiB/s (10.0 MiB → 70.0 MiB over the window,
// in-use heap profiles): main.remember retains 2.0 KiB/request"
func memoryTitle(v view, p *Prose) {
	source := "gctrace's live heap"
	if v.set(runfmt.SettingSource) == runfmt.SourceHeapProfiles {
		source = "in-use heap profiles"
	}
	p.say("live heap grows %v (%v → %v over the window, %v)", v.fig(runfmt.FigHeapSlope), v.fig(runfmt.FigHeapFrom), v.fig(runfmt.FigHeapTo), word(source))
	if c := v.culprit(); c.Function != "" {
		p.say(": %v retains %v/request", code(c.Function), efig(c, runfmt.FigBytesPerRequest))
	}
}

func memoryDetail(v view, p *Prose) {
	p.say("The live heap after each of %v collections in the window (gctrace) grows %v, from %v to %v.",
		v.fig(runfmt.FigCollections), v.fig(runfmt.FigHeapSlope), v.fig(runfmt.FigLiveStart), v.fig(runfmt.FigLiveEnd))
	if fs := v.f.Evidence.Functions; len(fs) > 0 {
		p.words(" Growth of the in-use heap by allocation site (heap profiles at the start and end of the window): ")
		p.join("; ", len(fs), func(i int) {
			p.say("%v %v/request (%v)", code(fs[i].Function), efig(fs[i], runfmt.FigBytesPerRequest), efig(fs[i], runfmt.FigHeapSlope))
		})
		p.words(".")
	}
}
