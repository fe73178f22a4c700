package profiling

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// During starts the window's CPU profile (and the recording of its waits)
// in the background and returns once they record; the returned channel
// closes when they are done.
func (p *Set) During(ctx context.Context, window time.Duration) <-chan struct{} {
	done := make(chan struct{})
	pctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.mu.Lock()
	p.windowSecs = window.Seconds()
	p.mu.Unlock()
	var wg sync.WaitGroup
	if p.chosen.endpoint() != nil {
		wg.Go(func() { p.recordEndpoint(pctx, window) })
		p.startWaits(pctx, &wg, window).begin(pctx, &wg, window)
	} else if p.chosen != nil {
		p.recordTree(pctx, &wg, window)
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// startWaits starts the chosen profiler's recording of the service's
// waits, if it takes one.
func (p *Set) startWaits(ctx context.Context, wg *sync.WaitGroup, window time.Duration) waitRecording {
	if w := p.chosen.waits(); w != nil {
		if r := w.startWaits(ctx, p, wg, window); r != nil {
			return r
		}
	}
	return noWaits{}
}

// noWaits is no recording of the service's waits.
type noWaits struct{}

func (noWaits) waitAttached(context.Context, time.Time)               {}
func (noWaits) begin(context.Context, *sync.WaitGroup, time.Duration) {}
func (noWaits) end()                                                  {}

// recordTree samples the service's processes over the window. The
// samplers start ahead of it: attaching takes perf, py-spy and rbspy a
// moment (seconds on a loaded machine), and a window they join late would
// be profiled in part. It returns when they sample, or samplerLead from
// now at the latest.
func (p *Set) recordTree(ctx context.Context, wg *sync.WaitGroup, window time.Duration) {
	forced := p.chosen
	if name, one := p.cfg.Choice.Profiler(); !one || name != p.chosen.Name {
		forced = nil
	}
	t := newTreeSampler(p.host.Service(), p.reg, forced, p.host.Warn, p.warmIdle)
	p.tree = t
	t.meter = p.meter
	t.hz = func(pr *Profiler) int { return pr.rate(p.cfg.PerfHz, window) }
	t.end = time.Now().Add(samplerLead + window) // the longest it can last
	started := make(chan struct{})
	t.onStart = func() { close(started) }
	deadline := time.Now().Add(samplerLead)
	waits := p.startWaits(ctx, wg, window)
	// At the window's end the profilers' CPU is read before they are
	// told to stop: what they do then (writing and converting their
	// samples) is not the window's.
	t.atEnd = func() {
		p.meter.end()
		waits.end()
	}
	wg.Go(func() { p.sample(ctx, window) })
	select {
	case <-started:
		t.waitAttached(ctx, time.Until(deadline))
	case <-ctx.Done():
	}
	waits.waitAttached(ctx, deadline)
	t.begin(window)
	waits.begin(ctx, wg, window)
}

// sample runs the tree sampler and keeps its profile; it is saved by
// After, on the run's goroutine: saving reads the window's bounds, which
// the run sets while the samplers finish.
func (p *Set) sample(ctx context.Context, d time.Duration) {
	prof, err := p.tree.run(ctx, d)
	if err != nil {
		p.cpuFailed(ctx, fmt.Errorf("%s: %w", p.Chosen(), err))
		return
	}
	p.used = p.tree.source()
	p.keep(runfmt.ProfileCPU, prof)
}

// recordEndpoint records the window's CPU profile through the endpoint.
func (p *Set) recordEndpoint(ctx context.Context, window time.Duration) {
	prof, _, err := p.chosen.Recorder.Record(ctx, Job{Endpoint: p.base, Window: window, Log: p.cfg.Log})
	if err != nil {
		p.cpuFailed(ctx, err)
		return
	}
	p.keep(runfmt.ProfileCPU, prof)
	p.save(runfmt.ProfileCPU, nil, prof)
}

// cpuFailed records a CPU profile that did not come: the run is degraded,
// unless the window itself was cut short (the run is then partial, and the
// profile's end is a consequence, not a cause).
func (p *Set) cpuFailed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		p.host.Warn("the CPU profile failed: " + err.Error())
		return
	}
	why := runfmt.DegradeFailed
	if errors.Is(err, capture.ErrTimeout) {
		why = runfmt.DegradeTimedOut
	}
	p.host.Degrade(runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: why, Note: err.Error()})
}
