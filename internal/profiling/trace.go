package profiling

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// The execution trace perflab takes by default is a slice of the measured
// window, in its middle: long enough to see a few hundred requests of a
// slow service, short enough that tracing's cost (see
// docs/performance.md) stays a small part of the window.
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

// Trace is the window's execution trace, as the service's endpoint served
// it (saved as profiles/trace.out).
type Trace struct {
	Data     []byte
	From, To time.Time // when it was requested and received
}

// Trace is the window's execution trace, nil without one.
func (p *Set) Trace() *Trace {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.trace
}

// startWaits prepares the window's execution trace (unless --no-trace):
// a slice by default, the whole window with --trace; it starts with the
// window.
func (pprofRecorder) startWaits(_ context.Context, p *Set, _ *sync.WaitGroup, _ time.Duration) waitRecording {
	if p.cfg.NoTrace {
		return nil
	}
	return goTrace{p: p}
}

// goTrace is the Go execution trace of the window, taken through the
// pprof endpoint when the window starts.
type goTrace struct{ p *Set }

func (goTrace) waitAttached(context.Context, time.Time) {}

func (t goTrace) begin(ctx context.Context, wg *sync.WaitGroup, window time.Duration) {
	wg.Go(func() { t.p.recordTrace(ctx, window) })
}

func (goTrace) end() {}

// recordTrace records the window's execution trace: a slice by default,
// the whole window with --trace.
func (p *Set) recordTrace(ctx context.Context, window time.Duration) {
	offset, secs := traceSlice(window, p.cfg.Trace)
	select {
	case <-time.After(offset):
	case <-ctx.Done():
		return
	}
	from := time.Now()
	data, err := p.client.Trace(ctx, p.base, secs)
	if err != nil {
		p.host.Warn("execution trace: " + err.Error() + " (no time split per request)")
		return
	}
	path := filepath.Join(p.host.Dir(), "profiles", "trace.out")
	if err := files.WriteFile(path, data); err != nil {
		p.host.Warn("saving the trace: " + err.Error())
	}
	p.addProfile(runfmt.ProfileTrace, runfmt.SourceProfilers(p.Chosen()), "profiles/trace.out", 0)
	p.mu.Lock()
	p.trace = &Trace{Data: data, From: from, To: time.Now()}
	p.mu.Unlock()
}
