package walltime

import (
	"math/bits"
	"time"

	"golang.org/x/exp/trace"

	"perflab/internal/runfmt"
)

// minRunSamples is the least number of CPU samples of request goroutines
// that places their running time by the samples' stacks; with fewer, it
// stays at the stacks where the goroutines stopped running.
const minRunSamples = 20

// finish closes what is still open at the end of the trace and computes
// the results.
func (a *analyzer) finish() *Analysis {
	end := a.last
	for _, g := range a.gs {
		switch g.state {
		case trace.GoRunning, trace.GoRunnable, trace.GoWaiting, trace.GoSyscall:
			a.leave(g, g.state, end, nil, nil)
		}
	}
	for _, g := range a.gs {
		if len(g.pending) > 0 && g.resolve().request() {
			a.flush(g)
		}
		switch g.class {
		case classServing:
			a.out.ServingGoroutines++
		case classStarted:
			a.out.StartedGoroutines++
		}
	}
	for id, since := range a.procSince {
		a.procBusy += end.Sub(since)
		delete(a.procSince, id)
	}
	a.endSTW(end)
	if a.gcOpen >= 0 {
		a.out.GCMark += end.Sub(a.gcOpen)
	}
	a.placeRunning()
	out := &a.out
	out.Duration = end.Sub(a.first)
	if !out.Start.IsZero() {
		out.End = out.Start.Add(out.Duration)
	}
	for k, ns := range a.acc {
		out.Time[k.wait.Kind()] += time.Duration(ns)
		out.ByWait[k.wait] += time.Duration(ns)
	}
	if out.GOMAXPROCS > 0 && out.Duration > 0 {
		out.PBusy = float64(a.procBusy) / float64(out.Duration) / float64(out.GOMAXPROCS)
	}
	out.Profile = a.profile()
	out.Holders = a.holderProfile()
	return out
}

// placeRunning moves the request goroutines' running time from the stacks
// where they stopped to the stacks of their CPU samples, when there are
// enough: the running total is kept, its distribution follows the samples.
func (a *analyzer) placeRunning() {
	counts, n := map[int32]int{}, 0
	for g, m := range a.samples {
		if !g.resolve().request() {
			continue
		}
		for st, c := range m {
			counts[st] += c
			n += c
		}
	}
	a.out.CPUSamples = n
	if n < minRunSamples {
		return
	}
	var total int64
	for k, ns := range a.acc {
		if k.wait == runfmt.WaitCPU {
			total += ns
			delete(a.acc, k)
		}
	}
	left, most := total, int32(-1)
	for st, c := range counts {
		// total·c overflows an int64 for long traces of many cores.
		hi, lo := bits.Mul64(uint64(total), uint64(c))
		share, _ := bits.Div64(hi, lo, uint64(n))
		a.acc[accKey{st, runfmt.WaitCPU}] += int64(share)
		left -= int64(share)
		if most < 0 || c > counts[most] || c == counts[most] && st < most {
			most = st
		}
	}
	// The rounding remainder goes to the stack with most samples, so that
	// the profile does not depend on the map's order.
	a.acc[accKey{most, runfmt.WaitCPU}] += left
}
