package capture

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// maxGCEvents bounds what a GCTrace keeps: a service collecting 100 times a
// second for an hour stays within it. When full, the older half is dropped.
const maxGCEvents = 1 << 19

// GCTrace collects the GC events of one process from its log lines. Feed it
// every line the process prints (Add ignores the others); it is safe for
// concurrent use. The zero value is ready.
type GCTrace struct {
	mu     sync.Mutex
	events []SeenGCEvent
}

// SeenGCEvent is a GC event with the wall time its line was seen.
type SeenGCEvent struct {
	GCEvent
	Seen time.Time
}

// Add records line's GC event, if it is a gctrace line, as seen at at.
func (g *GCTrace) Add(line string, at time.Time) {
	e, ok := ParseGCLine(line)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.events) >= maxGCEvents {
		g.events = append(g.events[:0], g.events[len(g.events)/2:]...)
	}
	g.events = append(g.events, SeenGCEvent{GCEvent: e, Seen: at})
}

// Events returns a copy of the events seen in [from, to], and the last
// event seen before from (zero Seen if none).
func (g *GCTrace) Events(from, to time.Time) (in []SeenGCEvent, prev SeenGCEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range g.events {
		switch {
		case e.Seen.Before(from):
			prev = e
		case !e.Seen.After(to):
			in = append(in, e)
		}
	}
	return in, prev
}

// Summary sums up the GC events seen in [from, to]:
//   - CPUPct: GC CPU (GCEvent.GCCPU) in the window ÷ windowCPUSeconds (the
//     process's CPU time in the window) × 100. If windowCPUSeconds is 0 it
//     is the trace's own measure over the window instead, the share of the
//     available CPU, from the cumulative "N%" of the event before the window
//     (or the first in it) and of the last.
//   - pauses: the percentiles of both stop-the-world phases of every event.
//   - HeapMaxMiB: the largest heap at the start or end of a GC.
//   - AllocMiBPerS: allocation rate estimated as the growth of the heap from
//     one GC's live heap to the next GC's start, summed over the window.
//
// A CPUPct above 100% cannot be a share: it is then 0, and CPUPctNote says
// why. GOGC is not in the trace and is left empty.
func (g *GCTrace) Summary(from, to time.Time, windowCPUSeconds float64) runfmt.GCSummary {
	in, prev := g.Events(from, to)
	s := runfmt.GCSummary{Count: len(in)}
	if len(in) == 0 {
		return s
	}
	var gcCPU time.Duration
	var pauses []float64
	allocMiB := 0.0
	last := prev
	for _, e := range in {
		gcCPU += e.GCCPU()
		for _, p := range e.Pauses() {
			pauses = append(pauses, float64(p)/float64(time.Millisecond))
		}
		s.HeapMaxMiB = max(s.HeapMaxMiB, e.HeapStartMiB, e.HeapEndMiB)
		if !last.Seen.IsZero() {
			allocMiB += max(e.HeapStartMiB-last.HeapLiveMiB, 0)
		}
		last = e
	}
	if windowCPUSeconds > 0 {
		s.CPUPct = gcCPU.Seconds() / windowCPUSeconds * 100
	} else {
		s.CPUPct = tracePct(in, prev)
	}
	if s.CPUPct > 100 {
		// gctrace's "ms cpu" figures are the wall time of the GC's workers
		// and pauses (the pauses times GOMAXPROCS), not CPU time: for a
		// process that waits for a CPU (throttled at its quota, a busy
		// machine) they exceed the CPU it used. The figure is then no share.
		s.CPUPctNote = fmt.Sprintf("share of CPU unknown: gctrace counts %s of the process's CPU, its GC workers' wall time while they waited for a CPU", units.FormatPct(s.CPUPct))
		s.CPUPct = 0
	}
	slices.Sort(pauses)
	s.PauseP50Ms = percentile(pauses, 50)
	s.PauseP99Ms = percentile(pauses, 99)
	s.PauseMaxMs = pauses[len(pauses)-1]
	if secs := to.Sub(from).Seconds(); secs > 0 {
		s.AllocMiBPerS = allocMiB / secs
	}
	return s
}

// tracePct turns the cumulative "N% since start" of two events into the
// share over the time between them: (p1·t1 − p0·t0) / (t1 − t0).
func tracePct(in []SeenGCEvent, prev SeenGCEvent) float64 {
	first, last := prev.GCEvent, in[len(in)-1].GCEvent
	if prev.Seen.IsZero() {
		first = in[0].GCEvent
	}
	t0, t1 := first.At.Seconds(), last.At.Seconds()
	if t1 <= t0 {
		return last.PctCPUSinceStart
	}
	return max((last.PctCPUSinceStart*t1-first.PctCPUSinceStart*t0)/(t1-t0), 0)
}

// percentile returns the nearest-rank p-th percentile of sorted xs.
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Timeline returns the GC events seen in [from, to] as run.json keeps them,
// timed in seconds since from; when there are more than limit, limit of
// them evenly spread over the window.
func (g *GCTrace) Timeline(from, to time.Time, limit int) []runfmt.GCEvent {
	in, _ := g.Events(from, to)
	if len(in) == 0 || limit <= 0 {
		return nil
	}
	step := 1.0
	if len(in) > limit {
		step = float64(len(in)) / float64(limit)
	}
	var out []runfmt.GCEvent
	for f := 0.0; int(f) < len(in) && len(out) < limit; f += step {
		e := in[int(f)]
		var pause time.Duration
		for _, p := range e.Pauses() {
			pause += p
		}
		out = append(out, runfmt.GCEvent{T: e.Seen.Sub(from).Seconds(), HeapStartMiB: e.HeapStartMiB, HeapEndMiB: e.HeapEndMiB,
			HeapLiveMiB: e.HeapLiveMiB, PauseMs: float64(pause) / float64(time.Millisecond), Forced: e.Forced})
	}
	return out
}
