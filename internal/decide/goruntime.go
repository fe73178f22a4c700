package decide

import (
	"math"
	"slices"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// goRuntime records GOMAXPROCS as the service used it (gctrace's "N P",
// else the execution trace), GOGC and GOMEMLIMIT as set and the GOGC its
// collections imply; nil for a service that shows none of them.
func (d *decider) goRuntime(from, to time.Time) *runfmt.GoRuntime {
	g := &runfmt.GoRuntime{}
	env := d.in.Env
	if env == nil {
		env = map[string]string{}
	}
	g.GOGC, g.GOMEMLIMIT, g.GOMAXPROCSEnv = env["GOGC"], env["GOMEMLIMIT"], env["GOMAXPROCS"]
	events, prev := d.in.GC.Events(from, to)
	if !prev.Seen.IsZero() {
		events = append([]capture.SeenGCEvent{prev}, events...)
	}
	if n := len(events); n > 0 {
		g.GOMAXPROCS, g.GOMAXPROCSSource = events[n-1].Procs, "gctrace"
	} else if tr := d.waits.trace; tr != nil && tr.GOMAXPROCS > 0 {
		g.GOMAXPROCS, g.GOMAXPROCSSource = tr.GOMAXPROCS, "execution trace"
	}
	g.GOGCEffective = effectiveGOGC(events)
	if g.GOMAXPROCS == 0 && g.GOGC == "" && g.GOMEMLIMIT == "" && g.GOMAXPROCSEnv == "" {
		return nil
	}
	return g
}

// effectiveGOGCMinLiveMB is the least live heap from which gctrace's whole
// megabytes give the heap goal's ratio to better than ~10%.
const effectiveGOGCMinLiveMiB = 8

// effectiveGOGC is the median GOGC implied by each collection's heap goal
// and the previous one's live heap: goal = live + (live + stacks +
// globals) × GOGC/100. 0 when the heap is too small to tell.
func effectiveGOGC(events []capture.SeenGCEvent) float64 {
	var vals []float64
	for i := 1; i < len(events); i++ {
		live, e := events[i-1].HeapLiveMiB, events[i]
		if live < effectiveGOGCMinLiveMiB || e.GoalMiB <= live {
			continue
		}
		vals = append(vals, 100*(e.GoalMiB-live)/(live+e.StacksMiB+e.GlobalsMiB))
	}
	if len(vals) == 0 {
		return 0
	}
	slices.Sort(vals)
	return math.Round(vals[len(vals)/2])
}

// heapGrowth is the live heap's trend over the window (gctrace's live heap
// after each collection, from the forced one before the window to the one
// after it) with the growth by allocation site from the heap profiles at
// both ends.
func (d *decider) heapGrowth(from, to time.Time, requests int64) *runfmt.HeapGrowth {
	p := d.prof
	end := p.HeapEndAt()
	if end.IsZero() {
		end = to
	}
	events, prev := d.in.GC.Events(from, end.Add(100*time.Millisecond))
	if !prev.Seen.IsZero() {
		events = append([]capture.SeenGCEvent{prev}, events...)
	}
	if len(events) < 2 || events[len(events)-1].Seen.Sub(events[0].Seen) < to.Sub(from)/2 {
		return nil // too few collections to tell a trend
	}
	h := &runfmt.HeapGrowth{Collections: len(events), LiveStartMiB: events[0].HeapLiveMiB, LiveEndMiB: events[len(events)-1].HeapLiveMiB}
	h.SlopeMiBPerS = liveSlope(events)
	if a, b, sites, ok := analysis.HeapDelta(p.Profile(runfmt.ProfileHeapStart), p.Profile(runfmt.ProfileHeap), requests, to.Sub(from).Seconds(), 3, d.userCode()); ok {
		h.Sites = sites
		h.InuseStartMiB, h.InuseEndMiB = float64(a)/(1<<20), float64(b)/(1<<20)
		if requests > 0 && b > a {
			h.BytesPerRequest = float64(b-a) / float64(requests)
		}
	}
	return h
}

// liveSlope is the least-squares slope of the live heap (MB) over time (s).
func liveSlope(events []capture.SeenGCEvent) float64 {
	t0 := events[0].Seen
	var n, sx, sy, sxx, sxy float64
	for _, e := range events {
		x, y := e.Seen.Sub(t0).Seconds(), e.HeapLiveMiB
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if den <= 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}
