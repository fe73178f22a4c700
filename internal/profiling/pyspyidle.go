package profiling

import (
	"context"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// spyIdleTail is how long an idle recording runs past the window's end
// (past it no request runs): it exits after the profilers' CPU is read.
const spyIdleTail = 250 * time.Millisecond

// spyIdleLead is how long before the slice the idle recorders start: the
// slice runs from when they sample, and py-spy's attach can take most of
// a second on a busy machine.
const spyIdleLead = 300 * time.Millisecond

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
	p *Set
	// whole: started ahead of the window, it records all of it; else it
	// records the window's last seconds, from begin.
	whole bool

	mu      sync.Mutex
	recs    []*capture.SpyRecording
	pids    []int          // the process each recorder samples
	warned  bool           // a recorder failed (one warning)
	started sync.WaitGroup // the recorders' start-ups
}

// startWaits starts the idle recording of the whole window with --trace;
// by default it prepares the slice, which starts with the window; none
// with --no-trace.
func (pySpyRecorder) startWaits(ctx context.Context, p *Set, _ *sync.WaitGroup, window time.Duration) waitRecording {
	switch {
	case p.cfg.Trace:
		ir := &idleRecording{p: p, whole: true}
		ir.start(ctx, window)
		return ir
	case p.cfg.NoTrace:
		return nil
	}
	return &idleRecording{p: p}
}

// start starts the recorders: of the whole service with --trace, else of
// the processes the CPU profile samples from the start.
func (ir *idleRecording) start(ctx context.Context, window time.Duration) {
	p := ir.p
	svc := p.host.Service()
	hz := pySpy.rate(p.cfg.PerfHz, window)
	pids, children := []int{svc.PID()}, len(svc.PIDs()) > 1
	if !ir.whole {
		pids, children = nil, false
		for _, pid := range svc.PIDs() {
			if info, err := service.DetectRuntime(pid); err == nil && pySpy.serves(info.Runtime) && !p.warmIdle[pid] {
				pids = append(pids, pid)
			}
		}
	}
	for _, pid := range pids {
		ir.started.Go(func() {
			rec, err := capture.StartPySpyIdle(ctx, capture.SpyConfig{PID: pid, Rate: hz, Subprocesses: children,
				OnStart: func(spy int) { p.meter.started(spy, runfmt.ProfilerPySpy, runfmt.RoleOffCPU, hz) }})
			ir.mu.Lock()
			defer ir.mu.Unlock()
			if err != nil {
				if !ir.warned {
					ir.warned = true
					p.host.Warn("py-spy --idle: " + err.Error() + ": no off-CPU stacks of that process (the CPU profile is not affected)")
				}
				return
			}
			ir.recs, ir.pids = append(ir.recs, rec), append(ir.pids, pid)
		})
	}
}

// waitAttached returns once every recorder samples (or failed), or at
// deadline: those that attach later join then.
func (ir *idleRecording) waitAttached(ctx context.Context, deadline time.Time) {
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

// begin runs the recording of the whole window to its end, or the slice.
func (ir *idleRecording) begin(ctx context.Context, wg *sync.WaitGroup, window time.Duration) {
	if ir.whole {
		wg.Go(func() { ir.stopAfter(ctx, window+spyIdleTail) })
		return
	}
	wg.Go(func() { ir.slice(ctx, window) })
}

func (*idleRecording) end() {}

// slice records the idle stacks over the window's last seconds; the
// window starts when it is called.
func (ir *idleRecording) slice(ctx context.Context, window time.Duration) {
	_, secs := traceSlice(window, false)
	slice := min(time.Duration(secs)*time.Second+spyIdleLead, window)
	select {
	case <-time.After(window - slice):
	case <-ctx.Done():
		return
	}
	ir.start(ctx, window)
	ir.stopAfter(ctx, slice+spyIdleTail)
}

// stopAfter stops the recording after d (or with ctx) and keeps its
// stacks: one profile, a pid label on every sample.
func (ir *idleRecording) stopAfter(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	ir.started.Wait() // a recorder still attaching is stopped too
	p := ir.p
	var profs []*profile.Profile
	var start, end int64
	for i, rec := range ir.recs {
		prof, err := rec.Stop()
		p.meter.exited(rec.PID(), rec.CPUUsed())
		if err != nil {
			p.host.Warn("py-spy --idle: " + err.Error() + ": its stacks are left out")
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
		p.host.Warn("py-spy --idle: merging the processes' stacks: " + err.Error())
		return
	}
	prof.TimeNanos, prof.DurationNanos = start, end-start
	p.keep(runfmt.ProfileIdle, prof)
	p.saveAs(runfmt.ProfileIdle, runfmt.SourceProfilers(runfmt.ProfilerPySpy), nil, prof)
}
