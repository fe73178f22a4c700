package decide

import (
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/ledger"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// analyseSpyWall turns the idle-inclusive stacks and the CPU profile into
// the time per request and its wall-time profile.
func (d *decider) analyseSpyWall() {
	idle, cpu := d.prof.Profile(runfmt.ProfileIdle), d.prof.Profile(runfmt.ProfileCPU)
	if idle == nil || cpu == nil || d.run.Load == nil || d.run.Load.Requests <= 0 {
		return
	}
	span, ok := d.spySpan(idle)
	if !ok {
		return
	}
	line := sourceLine(&analysis.Sources{})
	wall, idleNs, ok := analysis.SpyWall(idle, cpu, span.cpuShare, int64(span.cpuS*1e9), line)
	if !ok {
		d.warn("py-spy --idle: no thread was serving a request in a server perflab knows (http.server, wsgiref, gunicorn, uvicorn, a thread pool of anyio or concurrent.futures): no time split per request")
		return
	}
	t := &runfmt.TimePerRequest{Source: runfmt.TimeSourcePySpy, StartS: span.startS, Seconds: span.seconds, Requests: span.requests,
		IdleMs: float64(idleNs) / 1e6 / float64(span.requests)}
	t.Kinds = analysis.TimeKinds(wall, span.requests, d.userCode())
	for _, k := range t.Kinds {
		t.TotalMs += k.MsPerRequest
	}
	if rel, ok := d.prof.SaveWall(wall, runfmt.SourceTime(runfmt.TimeSourcePySpy)); ok {
		t.Profile = rel
	}
	d.waits.spyWall = wall
	req, all := analysis.SpySleeps(idle, line)
	d.waits.spySleep = &ledger.SampledSleep{Requests: time.Duration(req), All: time.Duration(all)}
	d.run.Time = t
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
func (d *decider) spySpan(idle *profile.Profile) (spyRange, bool) {
	r := d.run
	start, _ := d.prof.Window()
	whole := spyRange{seconds: r.Load.DurationS, requests: r.Load.Requests, cpuShare: 1}
	if r.Target != nil {
		whole.cpuS = r.Target.CPUSeconds
	}
	if d.cfg.Trace || idle.TimeNanos == 0 || start.IsZero() {
		return whole, true
	}
	from := time.Unix(0, idle.TimeNanos)
	to := from.Add(time.Duration(idle.DurationNanos))
	startS := max(from.Sub(start).Seconds(), 0)
	endS := min(to.Sub(start).Seconds(), r.Load.DurationS)
	sl := spyRange{startS: startS, seconds: endS - startS, requests: requestsIn(r.Load.Series, startS, endS)}
	if sl.seconds <= 0 || sl.requests <= 0 {
		d.warn("py-spy --idle: no request completed in the slice of the window it recorded: no time split per request")
		return sl, false
	}
	if d.in.Sampler == nil || whole.cpuS <= 0 {
		return sl, false
	}
	ts := service.Window(d.in.Sampler.Samples(), start.Add(seconds(startS)), start.Add(seconds(endS)), d.in.LimitCores, runtime.NumCPU())
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
