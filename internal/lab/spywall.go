package lab

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// spyIdleTail is how long an idle recording runs past the window's end
// (past it no request runs): it exits after the profilers' CPU is read.
const spyIdleTail = 250 * time.Millisecond

// idleRecording is py-spy's record of every thread of a Python service,
// idle ones included, beside the CPU profile: the wall-clock stacks that
// name what a request waits on. It reads the same stacks as the CPU
// recorders, so it costs as much: by default it records a slice of the
// window as long as the Go execution trace's (a third of it, 1 to 2 s),
// with one recorder per process the CPU profile samples from the start
// (not the processes idle through the warm-up); --trace records the whole
// window with one recorder, started before it, that follows the service's
// new processes (--subprocesses, which looks for them ten times a second
// by reading every process's /proc stat: 1.5–2% of a core). The slice is
// the window's last seconds, not its middle: py-spy attaches in a few
// hundredths of a second of CPU, but exiting (unmapping what it read)
// takes a tenth of a second per recorder on a busy VM, and a recording
// that ends with the window exits after it, as the CPU recorders do.
type idleRecording struct {
	mu      sync.Mutex
	recs    []*capture.SpyRecording
	pids    []int          // the process each recorder samples
	warned  bool           // a recorder failed (one warning)
	started sync.WaitGroup // the recorders' start-ups
}

// startSpyIdle starts the idle recording: of the whole window with
// --trace, else of the processes sampled from the start; waitAttached
// waits for it.
func (p *profileSet) startSpyIdle(ctx context.Context) *idleRecording {
	hz := p.s.cfg.samplerHz(runfmt.ProfilerPySpy, seconds(p.windowSecs))
	pids, children := []int{p.s.proc.PID()}, len(p.s.proc.PIDs()) > 1
	if !p.s.cfg.Trace {
		pids, children = nil, false
		for _, pid := range pythonPIDs(p.s.proc.PIDs()) {
			if !p.warmIdle[pid] {
				pids = append(pids, pid)
			}
		}
	}
	ir := &idleRecording{}
	for _, pid := range pids {
		ir.started.Go(func() {
			rec, err := capture.StartPySpyIdle(ctx, capture.SpyConfig{PID: pid, Rate: hz, Subprocesses: children,
				OnStart: func(spy int) { p.meter.started(spy, runfmt.ProfilerPySpy, runfmt.RoleOffCPU, hz) }})
			ir.mu.Lock()
			defer ir.mu.Unlock()
			if err != nil {
				if !ir.warned {
					ir.warned = true
					p.s.warn("py-spy --idle: " + err.Error() + ": no off-CPU stacks of that process (the CPU profile is not affected)")
				}
				return
			}
			ir.recs, ir.pids = append(ir.recs, rec), append(ir.pids, pid)
		})
	}
	return ir
}

// spyIdleSlice records the idle stacks over the window's last seconds;
// the window starts when it is called.
func (p *profileSet) spyIdleSlice(ctx context.Context, window time.Duration) {
	_, secs := traceSlice(window, false)
	// The recorders start spyIdleLead ahead of the slice: the slice runs
	// from when they sample, and attaching took 0.7 s of a 1 s slice on a
	// busy machine under the race detector.
	slice := min(time.Duration(secs)*time.Second+spyIdleLead, window)
	select {
	case <-time.After(window - slice):
	case <-ctx.Done():
		return
	}
	p.spyIdle(ctx, p.startSpyIdle(ctx), slice+spyIdleTail)
}

// spyIdleLead is how long before the slice the idle recorders start.
const spyIdleLead = 300 * time.Millisecond

// pythonPIDs are the Python processes of pids.
func pythonPIDs(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if info, err := target.DetectRuntime(pid); err == nil && info.Runtime == runfmt.RuntimePython {
			out = append(out, pid)
		}
	}
	return out
}

// waitAttached returns once every recorder samples (or failed), or at
// deadline: those that attach later join then.
func (ir *idleRecording) waitAttached(ctx context.Context, deadline time.Time) {
	if ir == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		ir.started.Wait()
		close(done)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// spyIdle stops the recording after d (or with ctx) and keeps its
// stacks: one profile, a pid label on every sample.
func (p *profileSet) spyIdle(ctx context.Context, ir *idleRecording, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	ir.started.Wait() // a recorder still attaching is stopped too
	var profs []*profile.Profile
	var start, end int64
	for i, rec := range ir.recs {
		prof, err := rec.Stop()
		p.meter.exited(rec.PID(), rec.CPUUsed())
		if err != nil {
			p.s.warn("py-spy --idle: " + err.Error() + ": its stacks are left out")
			continue
		}
		labelPIDs(prof, ir.pids[i])
		profs = append(profs, prof)
		if start == 0 || prof.TimeNanos < start {
			start = prof.TimeNanos
		}
		end = max(end, prof.TimeNanos+prof.DurationNanos)
	}
	if len(profs) == 0 {
		return
	}
	prof, err := profile.Merge(profs)
	if err != nil {
		p.s.warn("py-spy --idle: merging the processes' stacks: " + err.Error())
		return
	}
	prof.TimeNanos, prof.DurationNanos = start, end-start
	p.mu.Lock()
	p.idle = prof
	p.mu.Unlock()
	p.saveAs(runfmt.ProfileIdle, runfmt.SourceProfilers(runfmt.ProfilerPySpy), nil, prof)
}

// analyseSpyWall turns the idle-inclusive stacks and the CPU profile into
// the time per request and its wall-time profile.
func (s *session) analyseSpyWall() {
	p := s.prof
	if p == nil || p.idle == nil || p.cpu == nil || s.run.Load == nil || s.run.Load.Requests <= 0 {
		return
	}
	span, ok := s.spySpan()
	if !ok {
		return
	}
	wall, idleNs, ok := analysis.SpyWall(p.idle, p.cpu, span.cpuShare, int64(span.cpuS*1e9), sourceLine(&analysis.Sources{}))
	if !ok {
		s.warn("py-spy --idle: no thread was serving a request in a server perflab knows (http.server, wsgiref, gunicorn, uvicorn): no time split per request")
		return
	}
	t := &runfmt.TimePerRequest{Source: runfmt.TimeSourcePySpy, StartS: span.startS, Seconds: span.seconds, Requests: span.requests,
		IdleMs: float64(idleNs) / 1e6 / float64(span.requests)}
	t.Kinds = analysis.TimeKinds(wall, span.requests, s.userCode())
	for _, k := range t.Kinds {
		t.TotalMs += k.MsPerRequest
	}
	if rel, ok := p.saveWall(wall, runfmt.SourceTime(runfmt.TimeSourcePySpy)); ok {
		t.Profile = rel
	}
	p.spyWall = wall
	s.run.Time = t
}

// spyRange is the part of the window the idle recording covers: where it
// starts and how long, the requests completed in it, the service's CPU
// over it and that CPU's share of the window's (the CPU profile's).
type spyRange struct {
	startS, seconds float64
	requests        int64
	cpuS, cpuShare  float64
}

// spySpan finds the idle recording's place in the window. A recording of
// the whole window (--trace: py-spy sampled from before the load started
// to after it ended) holds every request of the window, and no other; a
// slice holds the requests and the CPU of its seconds.
func (s *session) spySpan() (spyRange, bool) {
	r, idle := s.run, s.prof.idle
	whole := spyRange{seconds: r.Load.DurationS, requests: r.Load.Requests, cpuShare: 1}
	if r.Target != nil {
		whole.cpuS = r.Target.CPUSeconds
	}
	if s.cfg.Trace || idle.TimeNanos == 0 || s.prof.from.IsZero() {
		return whole, true
	}
	from := time.Unix(0, idle.TimeNanos)
	to := from.Add(time.Duration(idle.DurationNanos))
	startS := max(from.Sub(s.prof.from).Seconds(), 0)
	endS := min(to.Sub(s.prof.from).Seconds(), r.Load.DurationS)
	sl := spyRange{startS: startS, seconds: endS - startS, requests: requestsIn(r.Load.Series, startS, endS)}
	if sl.seconds <= 0 || sl.requests <= 0 {
		s.warn("py-spy --idle: no request completed in the slice of the window it recorded: no time split per request")
		return sl, false
	}
	if s.sampler == nil || whole.cpuS <= 0 {
		return sl, false
	}
	ts := target.Window(s.sampler.Samples(), s.prof.from.Add(seconds(startS)), s.prof.from.Add(seconds(endS)), s.limitCores, runtime.NumCPU())
	sl.cpuS = ts.CPUSeconds
	sl.cpuShare = min(sl.cpuS/whole.cpuS, 1)
	return sl, sl.cpuShare > 0
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// sourceLine reads lines of the service's source files for
// analysis.SpyWall through src (each file once, bounded, regular files
// only: a FIFO named like a source file is refused, never read), at the
// paths the profile records when they are absolute.
func sourceLine(src *analysis.Sources) func(file string, n int64) string {
	return func(file string, n int64) string {
		if !filepath.IsAbs(file) {
			return ""
		}
		return src.Text(file, n)
	}
}
