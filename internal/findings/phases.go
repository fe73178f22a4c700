package findings

import (
	"cmp"
	"math"
	"slices"

	"perflab/internal/runfmt"
)

// A serial phase is a span of a batch program's run in which it kept
// about one core busy while it could use more. It is found on the
// program's timeline, whose steps say how many cores' work it had (its
// demand): a Go program's Ps running goroutines, another's threads on a
// CPU or waiting for one. Demand, not the CPU it got: on a machine busy
// with other work, a parallel phase whose threads wait for the cores
// others hold still wants them all, and a serial phase wants one however
// idle the other cores are. The cores it could use are its own (host,
// affinity, GOMAXPROCS, budget), whoever else runs on them.

// Thresholds of a serial phase.
const (
	// phaseDemandMax: a step of at most this many cores' work on average
	// is serial...
	phaseDemandMax = 1.3
	// phaseDemandMin: ...when it had at least this much (below, the
	// program mostly waited for something else: sleep, I/O).
	phaseDemandMin = 0.5
	// phaseMedianS: the time of the running median a timeline's demand
	// is smoothed with (as many steps, an odd number, at least 3), and how
	// far from where it puts a phase's ends they are fitted (fit).
	phaseMedianS = 1.0
	// phaseInsideNoise: what a step that is not serial costs inside a
	// phase, against a serial step outside one (fit).
	phaseInsideNoise = 0.1
	// phaseGapS: serial spans this close are one phase (a burst of the
	// collector's or the runtime's threads between them).
	phaseGapS = 0.25
	// phaseMinS and phaseMinShare: a phase shorter than either is not
	// said.
	phaseMinS     = 0.3
	phaseMinShare = 0.2
	// phaseCoresMin: the cores it could use, at least (below, one core
	// is most of what it has).
	phaseCoresMin = 1.5
	// phasesMax: the longest phases said.
	phasesMax = 2
	// phaseWholeRun: phases covering this share of the run are the whole
	// run's serial finding, when it has one.
	phaseWholeRun = 0.9
)

// Slice is one step of a batch program's timeline: from From to To
// (seconds since its start), the time its threads ran (BusyS) and the time
// they waited to (WaitS), each summed over them: in the Go scheduler's
// timeline its Ps' time running goroutines (nothing waits), in the others
// its threads' CPU and their waits for a CPU.
type Slice struct{ From, To, BusyS, WaitS float64 }

// Timeline is a batch program's work over its run, in steps.
type Timeline struct {
	Slices []Slice
	// Source is where it was read: runfmt.SourceGoScheduler (a Go
	// program's scheduler trace), runfmt.SourceSampler (its CPU and its
	// threads' waits for a CPU) or runfmt.SourcePerfSamples (its CPU
	// profile's samples: no waits).
	Source string
	// StepS is its usual step.
	StepS float64
}

// Phase is a span of a batch program's run in which it kept about one core
// busy: from From to To (seconds since its start), running on Cores (its
// threads on a CPU, or a Go program's Ps) and waiting for a CPU Waiting at
// a time, on average.
type Phase struct{ From, To, Cores, Waiting float64 }

// usableCores are the cores a batch program could use: its usable cores,
// or its budget when less.
func usableCores(b *runfmt.Batch) float64 {
	n := float64(b.Cores.Usable)
	if c := b.Cores.BudgetCores; c > 0 && c < n {
		n = c
	}
	return n
}

// SerialPhases are the serial phases of a batch program's timeline, the
// longest first (at most phasesMax); none when it could use fewer than
// phaseCoresMin cores or ran too briefly to judge.
func SerialPhases(b *runfmt.Batch, tl Timeline) []Phase {
	if usableCores(b) < phaseCoresMin || b.WallS < serialMinWallS {
		return nil
	}
	var out []Phase
	for _, sp := range serialSpans(tl.Slices, medianHalf(tl)) {
		ph := sp.phase(tl.Slices)
		if l := ph.To - ph.From; l >= phaseMinS && l >= phaseMinShare*b.WallS {
			out = append(out, ph)
		}
	}
	slices.SortStableFunc(out, func(a, b Phase) int { return cmp.Compare(b.To-b.From, a.To-a.From) })
	return out[:min(len(out), phasesMax)]
}

// span is a run of serial slices, first to last, and the parts of the
// slices around it that were serial too.
type span struct {
	first, last   int
	before, after float64 // seconds of the slices before first and after last
}

// demand is how many cores' work a slice had: the time its threads ran
// and waited over its length.
func (s Slice) demand() float64 {
	if s.To <= s.From {
		return 0
	}
	return (s.BusyS + s.WaitS) / (s.To - s.From)
}

// medianHalf is half the running median's steps (without the middle
// one): phaseMedianS of the timeline's steps.
func medianHalf(tl Timeline) int {
	step := tl.StepS
	if step <= 0 && len(tl.Slices) > 0 {
		step = (tl.Slices[len(tl.Slices)-1].To - tl.Slices[0].From) / float64(len(tl.Slices))
	}
	if step <= 0 {
		return 1
	}
	return max(1, int(phaseMedianS/2/step))
}

// serialSteps says which slices are serial, by their demand smoothed
// with a running median of 2*half+1 steps: a burst shorter than half of
// it goes (on a busy machine, a runtime thread that holds a P, or waits
// for a CPU, while the kernel runs others), and the step from one phase
// to the next stays where it was.
func serialSteps(sl []Slice, half int) []bool {
	out := make([]bool, len(sl))
	window := make([]float64, 0, 2*half+1)
	for i := range sl {
		window = window[:0]
		for j := i - half; j <= i+half; j++ {
			window = append(window, sl[max(0, min(len(sl)-1, j))].demand())
		}
		slices.Sort(window)
		out[i] = sl[i].To > sl[i].From && serialDemand(window[len(window)/2])
	}
	return out
}

// serialDemand says a step of demand d had about one core's work.
func serialDemand(d float64) bool { return d >= phaseDemandMin && d <= phaseDemandMax }

// serial says the slice, as it was, had about one core's work.
func (s Slice) serial() bool { return s.To > s.From && serialDemand(s.demand()) }

// serialSpans are the runs of serial slices, those apart by no more than
// phaseGapS joined.
func serialSpans(sl []Slice, half int) []span {
	serial := serialSteps(sl, half)
	var out []span
	for i := 0; i < len(sl); i++ {
		if !serial[i] {
			continue
		}
		j := i
		for j+1 < len(sl) && serial[j+1] {
			j++
		}
		if n := len(out); n > 0 && sl[i].From-sl[out[n-1].last].To <= phaseGapS {
			out[n-1].last = j
		} else {
			out = append(out, span{first: i, last: j})
		}
		i = j
	}
	for k := range out {
		lo, hi := 0, len(sl)-1
		if k > 0 {
			lo = out[k-1].last + 1
		}
		if k+1 < len(out) {
			hi = out[k+1].first - 1
		}
		out[k].fit(sl, 2*half, lo, hi)
		out[k].edges(sl)
	}
	return out
}

// fit moves the span's ends, within w steps of where the running median
// put them (and within lo and hi), to where they best split the steps as
// they were, serial inside and not outside. A step inside that is not
// serial costs phaseInsideNoise of one outside that is: on a busy machine
// a serial phase's steps read busier than they were in stretches of up to
// a few hundred milliseconds (a runtime thread holding a P, or waiting for
// a CPU, while the kernel runs others), another phase's seldom read
// serial. The running median moves an end by as much as such a stretch
// near it.
func (sp *span) fit(sl []Slice, w, lo, hi int) {
	cost := func(i int, inside bool) float64 {
		switch t := sl[i].To - sl[i].From; {
		case inside && !sl[i].serial():
			return phaseInsideNoise * t
		case !inside && sl[i].serial():
			return t
		}
		return 0
	}
	from, to := max(lo, sp.last-w), min(hi, sp.last+w)
	best, end := math.Inf(1), sp.last
	for e := max(from, sp.first); e <= to; e++ {
		var c float64
		for i := from; i <= to; i++ {
			c += cost(i, i <= e)
		}
		if c <= best { // a tie goes to the later end
			best, end = c, e
		}
	}
	sp.last = end
	from, to = max(lo, sp.first-w), min(sp.last, sp.first+w)
	best, start := math.Inf(1), sp.first
	for b := to; b >= from; b-- {
		var c float64
		for i := from; i <= to; i++ {
			c += cost(i, i >= b)
		}
		if c <= best { // a tie goes to the earlier start
			best, start = c, b
		}
	}
	sp.first = start
}

// edges finds how much of the slice on each side of the span was serial:
// a slice the phase began or ended in mixes the phase's demand with that
// of the slice beyond it, in proportion to the time of each.
func (sp *span) edges(sl []Slice) {
	level := spanDemand(sl[sp.first : sp.last+1])
	if i := sp.first - 1; i >= 1 {
		sp.before = mixed(sl[i], level, sl[i-1].demand())
	}
	if i := sp.last + 1; i+1 < len(sl) {
		sp.after = mixed(sl[i], level, sl[i+1].demand())
	}
}

// mixed is the time of slice s at demand level, when the rest of it was
// at demand outer.
func mixed(s Slice, level, outer float64) float64 {
	if level == outer {
		return 0
	}
	f := (s.demand() - outer) / (level - outer)
	return max(0, min(1, f)) * (s.To - s.From)
}

// spanDemand is the slices' demand over their time.
func spanDemand(sl []Slice) float64 {
	var t, d float64
	for _, s := range sl {
		t += s.To - s.From
		d += s.BusyS + s.WaitS
	}
	if t <= 0 {
		return 0
	}
	return d / t
}

// phase is the span as a phase: its time, its edges included, and its
// threads' CPU and waits in its slices.
func (sp span) phase(sl []Slice) Phase {
	ph := Phase{From: sl[sp.first].From - sp.before, To: sl[sp.last].To + sp.after}
	var t, cpu, wait float64
	for _, s := range sl[sp.first : sp.last+1] {
		t += s.To - s.From
		cpu += s.BusyS
		wait += s.WaitS
	}
	if t > 0 {
		ph.Cores, ph.Waiting = cpu/t, wait/t
	}
	return ph
}
