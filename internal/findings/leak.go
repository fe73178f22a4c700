package findings

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
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
	// mib is the runtime's "MB" (gctrace, run.json's _mb fields) in bytes.
	mib = 1 << 20
)

// memoryGrowth reports a live heap that grew over the window: gctrace's
// live heap after each collection trends up, and the in-use heap profiles
// (after a forced collection at both ends) grew and name the allocation
// sites that retained it.
func memoryGrowth(in FindingInput) []ranked {
	h := in.Heap
	if h == nil || h.SlopeMBPerS <= 0 {
		return nil
	}
	from, to, least := h.LiveStartMB, h.LiveEndMB, gctraceGrowthMinMB
	if h.InuseEndMB > 0 {
		from, to, least = h.InuseStartMB, h.InuseEndMB, growthMinMB
	}
	grew := to - from
	if grew < least || grew < growthMinShare*from {
		return nil
	}
	if h.Collections >= gctraceMinCollections && h.LiveEndMB-h.LiveStartMB < growthMinMB {
		// The heap profiles are sampled (one sample per 512 KiB allocated)
		// and a ring or cache that churns moves their in-use figures by
		// megabytes; gctrace's live heap after every collection is exact
		// and says it did not grow.
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingMemoryGrowth, CostBytesPerRequest: h.BytesPerRequest}
	source := "gctrace's live heap"
	if h.InuseEndMB > 0 {
		source = "in-use heap profiles"
	}
	f.Title = fmt.Sprintf("live heap grows %s/s (%s → %s over the window, %s)", units.FormatBytes(h.SlopeMBPerS*mib), units.FormatBytes(from*mib), units.FormatBytes(to*mib), source)
	var sites []string
	for _, s := range h.Sites {
		f.Functions = append(f.Functions, s.Function)
		sites = append(sites, fmt.Sprintf("%s %s/request (%s/s)", s.Function, units.FormatBytes(s.BytesPerRequest), units.FormatBytes(s.MBPerS*mib)))
	}
	if len(h.Sites) > 0 {
		f.Title += fmt.Sprintf(": %s retains %s/request", h.Sites[0].Function, units.FormatBytes(h.Sites[0].BytesPerRequest))
	}
	var d strings.Builder
	fmt.Fprintf(&d, "The live heap after each of %d collections in the window (gctrace) grows %s/s, from %s to %s.", h.Collections, units.FormatBytes(h.SlopeMBPerS*mib), units.FormatBytes(h.LiveStartMB*mib), units.FormatBytes(h.LiveEndMB*mib))
	if len(sites) > 0 {
		fmt.Fprintf(&d, " Growth of the in-use heap by allocation analysis.WaitSite (heap profiles at the start and end of the window): %s.", strings.Join(sites, "; "))
	}
	d.WriteString(" Memory that grows with every request under steady load is a leak (a slice, map or cache that only grows) or a cache still filling: bound it, evict, or stop keeping per-request data.")
	f.Detail = d.String()
	// A growing heap costs no time per request by itself: it ranks by how
	// much of the heap the window added, next to the costs of time.
	rank := grew / to
	return []ranked{{f, rank}}
}
