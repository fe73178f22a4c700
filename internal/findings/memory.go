package findings

import (
	"math"

	"perflab/internal/runfmt"
)

// Thresholds of the memory-growth rule. gctrace prints whole megabytes,
// so without heap profiles a smaller heap cannot show a trend.
const (
	growthMinMB        = 1.0  // in-use heap growth over the window (heap profiles)
	growthMinShare     = 0.10 // of the heap at the start
	gctraceGrowthMinMB = 4.0  // live heap growth when only gctrace tells
	// gctraceMinCollections is how many collections in the window make
	// gctrace's live heap the judge of whether it grew at all.
	gctraceMinCollections = 3
	// heapSampleMiB is the Go runtime's heap profile sampling interval
	// (runtime.MemProfileRate, 512 KiB): an in-use figure sums the live
	// sampled allocations, each standing for about that much, so two
	// profiles of an unchanged heap of H MiB differ by about
	// sqrt(2·H·heapSampleMiB); a growth counts beyond heapNoiseSigmas of
	// that.
	heapSampleMiB   = 0.5
	heapNoiseSigmas = 3.0
)

// memoryGrowth reports a live heap that grew over the window: gctrace's
// live heap after each collection trends up, and the in-use heap profiles
// (after a forced collection at both ends) grew and name the allocation
// sites that retained it.
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
	if source == runfmt.SourceHeapProfiles && grew < heapNoiseSigmas*math.Sqrt((from+to)*heapSampleMiB) {
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
