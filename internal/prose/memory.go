package prose

import "perflab/internal/runfmt"

// memoryWords word a live heap that grew over the window, with the
// allocation sites that retained it.
var memoryWords = oneKind(runfmt.FindingMemoryGrowth, memoryTitle, memoryDetail, advices{
	runfmt.AdviceBoundGrowth: fixed("Memory that grows with every request under steady load is a leak (a slice, map or cache that only grows) or a cache still filling: bound it, evict, or stop keeping per-request data."),
})

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
