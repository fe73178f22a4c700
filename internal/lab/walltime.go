package lab

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/files"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/walltime"
)

// The execution trace perflab takes by default is a slice of the measured
// window, in its middle: long enough to see a few hundred requests of a
// slow service, short enough that tracing's cost (see the README's
// performance section) stays a small part of the window.
const (
	traceSliceMax = 2 * time.Second
	traceSliceMin = time.Second
)

// traceSlice returns where in a window of length w the trace starts and how
// many whole seconds it lasts: the whole window with whole, else a slice of
// a third of it, 1 to 2 s, centred.
func traceSlice(w time.Duration, whole bool) (offset time.Duration, secs int) {
	if whole {
		return 0, max(1, int(w.Seconds()))
	}
	d := min(traceSliceMax, max(traceSliceMin, (w/3).Round(time.Second)))
	if d > w {
		d = max(time.Second, w.Truncate(time.Second))
	}
	return ((w - d) / 2).Truncate(100 * time.Millisecond), int(d.Seconds())
}

// tracing is what the window's execution trace gave.
type tracing struct {
	data       []byte
	from, to   time.Time // when it was requested and received
	offset     time.Duration
	wall       *walltime.Analysis
	wallStartS float64 // where the analysed slice starts in the window
}

// trace records the window's execution trace: a slice by default, the whole
// window with --trace.
func (p *profileSet) trace(ctx context.Context, window time.Duration) {
	offset, secs := traceSlice(window, p.s.cfg.Trace)
	select {
	case <-time.After(offset):
	case <-ctx.Done():
		return
	}
	from := time.Now()
	data, err := p.client.Trace(ctx, p.base, secs)
	if err != nil {
		p.s.warn("execution trace: " + err.Error() + " (no time split per request)")
		return
	}
	path := filepath.Join(p.s.dir, "profiles", "trace.out")
	if err := files.WriteFile(path, data); err != nil {
		p.s.warn("saving the trace: " + err.Error())
	}
	p.s.addProfile(runfmt.ProfileTrace, runfmt.SourceProfilers(runfmt.ProfilerPprof), "profiles/trace.out", 0)
	p.mu.Lock()
	p.traced = &tracing{data: data, from: from, to: time.Now(), offset: offset}
	p.mu.Unlock()
}

// analyseTrace reads the window's trace into the run's time per request and
// saves its wall-time profiles. A trace that cannot be read gives one
// warning and nothing else: no split from part of a trace.
func (s *session) analyseTrace() {
	tr := s.prof.traced
	if tr == nil || s.run.Load == nil {
		return
	}
	a, err := walltime.ReadWith(bytes.NewReader(tr.data), walltime.Options{Counts: analysis.IsUserFunc})
	if err != nil {
		s.warn(fmt.Sprintf("execution trace (profiles/trace.out): %v: no time split per request", err))
		return
	}
	tr.wall = a
	start, end := a.Start, a.End
	if start.IsZero() { // Go before 1.25: no wall clock in the trace
		start, end = tr.from, tr.from.Add(a.Duration)
	}
	startS := start.Sub(s.prof.from).Seconds()
	tr.wallStartS = startS
	requests := requestsIn(s.run.Load.Series, startS, startS+a.Duration.Seconds())
	if requests <= 0 {
		s.warn("execution trace: no request completed while it was taken: no time split per request")
		return
	}
	if a.ServingGoroutines == 0 {
		s.warn("execution trace: no goroutine served requests through net/http (another HTTP server?): no time split per request")
		return
	}
	t := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, StartS: startS, Seconds: end.Sub(start).Seconds(), Requests: requests,
		IdleMs: a.Idle.Seconds() * 1000 / float64(requests)}
	t.Kinds = analysis.TimeKinds(a.Profile, requests, s.userCode())
	for _, k := range t.Kinds {
		t.TotalMs += k.MsPerRequest
	}
	t.Scheduler = &runfmt.GoScheduler{
		GOMAXPROCS: a.GOMAXPROCS, PBusyPct: 100 * a.PBusy,
		StopTheWorldMs: ms(sumDurations(a.StopTheWorld)), GCStopMs: ms(a.GCStops), GCCycles: a.GCCycles,
		GoroutinesMax: a.GoroutinesMax, GoroutinesCreated: a.GoroutinesCreated, GoroutinesEnded: a.GoroutinesEnded,
		ServingGoroutines: a.ServingGoroutines, StartedGoroutines: a.StartedGoroutines, CPUSamples: a.CPUSamples,
	}
	if rel, ok := s.prof.saveWall(a.Profile, runfmt.SourceTime(runfmt.TimeSourceGoTrace)); ok {
		t.Profile = rel
	}
	s.run.Time = t
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
func (s *session) waitInput(in *findings.FindingInput) {
	r, p := s.run, s.prof
	in.Time, in.GoRuntime, in.Heap = r.Time, r.GoRuntime, r.Heap
	in.Peers = p.peers.list()
	if tr := p.traced; tr != nil && tr.wall != nil && r.Time != nil {
		in.Wall, in.Holders = tr.wall.Profile, tr.wall.Holders
	}
	if p.spyWall != nil && r.Time != nil {
		in.Wall = p.spyWall
	}
	if p.sched != nil {
		in.Wall = p.sched // off-CPU stacks of every thread: no split per request
	}
	switch {
	case r.Time != nil, p.sched != nil:
	case s.cfg.NoTrace:
		in.WaitChecks = append(in.WaitChecks, "no execution trace or off-CPU sampling (--no-trace)")
	case p.mode == runfmt.ProfilerPprof:
		in.WaitChecks = append(in.WaitChecks, "no usable execution trace (see the warnings)")
	default:
		in.WaitChecks = append(in.WaitChecks, "no wall-clock profile of the service's threads")
	}
}

// offCPUFlame is the flame graph page of the wall-time profile's time off
// a CPU, per request, for report.html; nil without one.
func (s *session) offCPUFlame() []byte {
	wall := s.wallProfile()
	if wall == nil || s.run.Load == nil {
		return nil
	}
	requests, source := s.run.Load.Requests, "perf sched"
	if t := s.run.Time; t != nil {
		requests, source = t.Requests, string(t.Source)
	}
	var buf bytes.Buffer
	opt := analysis.FlameOptions{Title: s.run.ID + ": off-CPU time (" + source + ")", SampleIndex: runfmt.OffCPUSample, Requests: requests}
	if err := analysis.WriteFlameHTML(&buf, wall, opt); err != nil {
		s.warn("off-CPU flame graph for report.html: " + err.Error())
		return nil
	}
	return buf.Bytes()
}

// wallProfile is the run's wall-time profile, nil without one.
func (s *session) wallProfile() *profile.Profile {
	switch {
	case s.prof == nil:
		return nil
	case s.prof.spyWall != nil:
		return s.prof.spyWall
	case s.prof.traced != nil && s.prof.traced.wall != nil:
		return s.prof.traced.wall.Profile
	case s.prof.sched != nil:
		return s.prof.sched
	}
	return nil
}
