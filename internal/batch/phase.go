package batch

import (
	"math"
	"slices"
	"time"

	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"

	"perflab/internal/analysis"
	"perflab/internal/decide"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// batchTimelineStep is how often the program's CPU and its threads' waits
// for a CPU are read (the sampler's step): the timeline its serial phases
// are found on. A phase's ends are found to a fraction of it.
const batchTimelineStep = 100 * time.Millisecond

// timelineMinSlices: a timeline of fewer steps over the run gives way to
// the next source (timeline).
const timelineMinSlices = 5

// Other programs' timeline comes from the sampler: its cgroup's CPU counter
// (its processes' /proc ticks without one) and its threads' waits for a
// CPU (schedstat), read every batchTimelineStep. Both are the kernel's
// running totals, current to its last tick, so each step holds what ran
// in it. The kernel tracing (ktrace) counts a thread's time when it
// leaves its CPU, so a thread that runs for seconds unopposed shows its
// whole run at its end: its totals make no timeline. perf's samples are
// the fallback: their times give the CPU of each step, not the waits.

// timeline is the program's timeline over its run: a Go program's
// scheduler trace (batchsched.go), else the sampler's steps when it read
// enough of them, else perf's samples; false when none did.
func (b *batch) timeline() (findings.Timeline, bool) {
	wall := b.end.Sub(b.start).Seconds()
	split := func(from, to float64, rising bool) (float64, bool) {
		return changePoint(b.sampledTimeline(wall), from, to, rising)
	}
	if tl := b.sched.timeline(b.start, wall, split); len(tl.Slices) >= timelineMinSlices {
		return tl, true
	}
	if tl := b.sampledTimeline(wall); len(tl.Slices) >= timelineMinSlices {
		return tl, true
	}
	if tl := b.perfTimeline(wall); len(tl.Slices) > 0 {
		return tl, true
	}
	return findings.Timeline{}, false
}

// changePoint is where, from from to to (seconds since the program's
// start), the sampled timeline's demand (its threads on a CPU or waiting
// for one) changes most: the step boundary that best splits its steps
// there into a level before and one after, the one after higher when
// rising. On a busy machine both levels are above the program's work
// (its runtime's threads wait for a CPU too), but the one of more
// goroutines at work is higher. False with fewer than two steps there, or
// a change the other way.
func changePoint(tl findings.Timeline, from, to float64, rising bool) (float64, bool) {
	var d, at []float64 // each step's demand, and where it ends
	for _, s := range tl.Slices {
		if s.From >= from && s.To <= to && s.To > s.From {
			d, at = append(d, (s.BusyS+s.WaitS)/(s.To-s.From)), append(at, s.To)
		}
	}
	if len(d) < 2 {
		return 0, false
	}
	best, split := math.Inf(1), -1
	for k := 1; k < len(d); k++ {
		before, after := mean(d[:k]), mean(d[k:])
		if (after > before) != rising {
			continue
		}
		if e := sse(d[:k], before) + sse(d[k:], after); e < best {
			best, split = e, k
		}
	}
	if split < 0 {
		return 0, false
	}
	return at[split-1], true
}

func mean(v []float64) float64 {
	var t float64
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

// sse is the sum of the squares of v's distances from m.
func sse(v []float64, m float64) float64 {
	var t float64
	for _, x := range v {
		t += (x - m) * (x - m)
	}
	return t
}

// sampledTimeline is the sampler's readings as steps, cut to the run.
func (b *batch) sampledTimeline(wall float64) findings.Timeline {
	if b.sampler == nil {
		return findings.Timeline{Source: runfmt.SourceSampler}
	}
	return sampledSteps(b.start, b.sampler.Samples(), wall)
}

// sampledSteps are the steps between the samples of a run from start to
// wall seconds.
func sampledSteps(start time.Time, smp []service.Sample, wall float64) findings.Timeline {
	tl := findings.Timeline{Source: runfmt.SourceSampler}
	var steps []float64
	for i := 1; i < len(smp); i++ {
		s0, s1 := smp[i-1], smp[i]
		from, to := s0.T.Sub(start).Seconds(), s1.T.Sub(start).Seconds()
		if to <= 0 || from >= wall || to <= from {
			continue
		}
		steps = append(steps, to-from)
		// The program was held before its start and gone after its end:
		// what a step across either counted ran within the run.
		tl.Slices = append(tl.Slices, findings.Slice{From: max(0, from), To: min(wall, to),
			BusyS: max(0, s1.CPUSeconds-s0.CPUSeconds), WaitS: max(0, s1.RunqueueWaitSeconds-s0.RunqueueWaitSeconds)})
	}
	if len(steps) > 0 {
		slices.Sort(steps)
		tl.StepS = steps[len(steps)/2]
	}
	return tl
}

// perfTimeline is the CPU of perf's samples in steps of
// batchTimelineStep: each sample stands for one period of a thread's CPU.
func (b *batch) perfTimeline(wall float64) findings.Timeline {
	tl := findings.Timeline{Source: runfmt.SourcePerfSamples, StepS: batchTimelineStep.Seconds()}
	if b.cpu == nil || b.perf == nil || len(b.perf.times) == 0 || b.cpu.Period <= 0 || wall <= 0 {
		return tl
	}
	step := batchTimelineStep.Seconds()
	n := int(math.Ceil(wall / step))
	cpu := make([]float64, n)
	period := time.Duration(b.cpu.Period).Seconds()
	for _, st := range b.perf.times {
		if at := (st.Mono - b.startMono).Seconds(); at >= 0 && at < wall {
			cpu[int(at/step)] += period
		}
	}
	for i := range n {
		tl.Slices = append(tl.Slices, findings.Slice{From: float64(i) * step, To: min(wall, float64(i+1)*step), BusyS: cpu[i]})
	}
	return tl
}

// phaseCode is the code that ran from from to to (seconds since the
// program's start): the hot functions of the CPU profile's samples taken
// then, with their lines.
func (b *batch) phaseCode(from, to float64) ([]runfmt.HotFunc, string) {
	switch {
	case b.cpu == nil && b.cpuNote != "":
		return nil, b.cpuNote
	case b.cpu == nil:
		return nil, "the run has no CPU profile"
	case b.perf == nil || len(b.perf.times) == 0:
		return nil, "perf gave its samples no times"
	}
	span := b.spanProfile(b.startMono+secs(from), b.startMono+secs(to))
	if len(span.Sample) == 0 {
		return nil, "its CPU profile has no sample in it"
	}
	uc := b.userCode()
	hot := analysis.HotFor(span, 1, decide.HotRows, uc)
	findings.AttachLines(span, nil, hot, b.sources(), uc)
	return hot, ""
}

// spanProfile is the CPU profile of the samples perf took from from to to
// (CLOCK_MONOTONIC): each sample's values in the share of its times that
// fall in the span. It shares the whole profile's locations and
// functions.
func (b *batch) spanProfile(from, to time.Duration) *profile.Profile {
	all, in := map[*profile.Sample]int64{}, map[*profile.Sample]int64{}
	for _, st := range b.perf.times {
		all[st.Sample]++
		if st.Mono >= from && st.Mono < to {
			in[st.Sample]++
		}
	}
	p := b.cpu
	span := &profile.Profile{SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType, PeriodType: p.PeriodType, Period: p.Period,
		Mapping: p.Mapping, Location: p.Location, Function: p.Function, TimeNanos: p.TimeNanos + int64(from-b.startMono), DurationNanos: int64(to - from)}
	for _, s := range p.Sample {
		k := in[s]
		if k == 0 {
			continue
		}
		v := make([]int64, len(s.Value))
		for i, x := range s.Value {
			v[i] = x * k / all[s]
		}
		span.Sample = append(span.Sample, &profile.Sample{Location: s.Location, Value: v, Label: s.Label, NumLabel: s.NumLabel, NumUnit: s.NumUnit})
	}
	return span
}

// sources is where the program's source files are looked for.
func (b *batch) sources() *analysis.Sources {
	src := &analysis.Sources{}
	if b.cfg.Dir != "" {
		src.SearchPath = []string{b.cfg.Dir}
	}
	return src
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// monoNow is the time on CLOCK_MONOTONIC, the clock of perf's samples.
func monoNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
