package decide

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/findings"
	"perflab/internal/ledger"
	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/walltime"
)

// waitState is what the run made of the window's waits: the execution
// trace's analysis and the wall-time profile made from py-spy's idle
// stacks.
type waitState struct {
	trace   *walltime.Analysis
	spyWall *profile.Profile
	// spySleep is what py-spy's idle stacks saw of the threads asleep:
	// the request threads' share of the kernel's time asleep.
	spySleep *ledger.SampledSleep
}

// analyseTrace reads the window's trace tr (nil for none) into the run's
// time per request and saves its wall-time profiles. A trace that cannot
// be read gives one warning and nothing else: no split from part of a
// trace.
func (d *decider) analyseTrace(tr *profiling.Trace) {
	if tr == nil || d.run.Load == nil {
		return
	}
	a, err := walltime.ReadWith(bytes.NewReader(tr.Data), walltime.Options{Counts: d.userCode().IsUser})
	if err != nil {
		d.warn(fmt.Sprintf("execution trace (profiles/trace.out): %v: no time split per request", err))
		return
	}
	d.waits.trace = a
	start, end := a.Start, a.End
	if start.IsZero() { // Go before 1.25: no wall clock in the trace
		start, end = tr.From, tr.From.Add(a.Duration)
	}
	from, _ := d.prof.Window()
	startS := start.Sub(from).Seconds()
	requests := requestsIn(d.run.Load.Series, startS, startS+a.Duration.Seconds())
	if requests <= 0 {
		d.warn("execution trace: no request completed while it was taken: no time split per request")
		return
	}
	if a.ServingGoroutines == 0 {
		d.warn("execution trace: no goroutine served requests through net/http (another HTTP server?): no time split per request")
		return
	}
	t := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, StartS: startS, Seconds: end.Sub(start).Seconds(), Requests: requests,
		IdleMs: a.Idle.Seconds() * 1000 / float64(requests)}
	t.Kinds = analysis.TimeKinds(a.Profile, requests, d.userCode())
	for _, k := range t.Kinds {
		t.TotalMs += k.MsPerRequest
	}
	t.Scheduler = &runfmt.GoScheduler{
		GOMAXPROCS: a.GOMAXPROCS, PBusyPct: 100 * a.PBusy,
		StopTheWorldMs: ms(sumDurations(a.StopTheWorld)), GCStopMs: ms(a.GCStops), GCCycles: a.GCCycles,
		GoroutinesMax: a.GoroutinesMax, GoroutinesCreated: a.GoroutinesCreated, GoroutinesEnded: a.GoroutinesEnded,
		ServingGoroutines: a.ServingGoroutines, StartedGoroutines: a.StartedGoroutines, CPUSamples: a.CPUSamples,
	}
	if rel, ok := d.prof.SaveWall(a.Profile, runfmt.SourceTime(runfmt.TimeSourceGoTrace)); ok {
		t.Profile = rel
	}
	d.run.Time = t
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

func sumDurations(m map[string]time.Duration) time.Duration {
	var t time.Duration
	for _, d := range m {
		t += d
	}
	return t
}

// requestsIn estimates the requests completed between from and to seconds
// into the window from its per-second series (each second's count spread
// evenly over it).
func requestsIn(series []runfmt.SeriesPoint, from, to float64) int64 {
	var n float64
	for _, pt := range series {
		lo, hi := max(pt.T, from), min(pt.T+1, to)
		if hi > lo {
			n += float64(pt.Requests) * (hi - lo)
		}
	}
	return int64(math.Round(n))
}

// waitInput adds to in what the window says about time off the CPU: the
// wall-time profile and its split, the peers, the runtime settings, the
// heap's growth, and what could not be looked at.
func (d *decider) waitInput(in *findings.FindingInput) {
	r, w := d.run, &d.waits
	sched := d.prof.Profile(runfmt.ProfileOffCPU)
	in.Time, in.GoRuntime, in.Heap = r.Time, r.GoRuntime, r.Heap
	in.Peers = d.in.Peers.List
	if w.trace != nil && r.Time != nil {
		in.Wall, in.Holders = w.trace.Profile, w.trace.Holders
	}
	if w.spyWall != nil && r.Time != nil {
		in.Wall = w.spyWall
	}
	if sched != nil {
		in.Wall = sched // off-CPU stacks of every thread: no split per request
	}
	switch {
	case r.Time != nil, sched != nil:
	case d.cfg.NoTrace:
		in.WaitChecks = append(in.WaitChecks, "no execution trace or off-CPU sampling (--no-trace)")
	case d.prof.Endpoint() != "":
		in.WaitChecks = append(in.WaitChecks, "no usable execution trace (see the warnings)")
	default:
		in.WaitChecks = append(in.WaitChecks, "no wall-clock profile of the service's threads")
	}
}

// offCPUFlame is the flame graph page of the wall-time profile's time off
// a CPU, per request, for report.html; nil without one.
func (d *decider) offCPUFlame() []byte {
	wall := d.wallProfile()
	if wall == nil || d.run.Load == nil {
		return nil
	}
	requests, source := d.run.Load.Requests, "perf sched"
	if t := d.run.Time; t != nil {
		requests, source = t.Requests, string(t.Source)
	}
	var buf bytes.Buffer
	opt := analysis.FlameOptions{Title: d.run.ID + ": off-CPU time (" + source + ")", SampleIndex: runfmt.OffCPUSample, Requests: requests, UserCode: d.userCode(),
		Leaves: analysis.OffCPULeaves()}
	if err := analysis.WriteFlameHTML(&buf, wall, opt); err != nil {
		d.warn("off-CPU flame graph for report.html: " + err.Error())
		return nil
	}
	return buf.Bytes()
}

// wallProfile is the run's wall-time profile, nil without one.
func (d *decider) wallProfile() *profile.Profile {
	switch {
	case d.waits.spyWall != nil:
		return d.waits.spyWall
	case d.waits.trace != nil:
		return d.waits.trace.Profile
	}
	return d.prof.Profile(runfmt.ProfileOffCPU)
}
