package profiling

import (
	"context"
	"sync"
	"time"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// schedRecording is a recording of a native service's context switches
// (perf sched:sched_switch) beside perf's CPU profile: where its threads
// wait off a CPU. It starts ahead of the window, as the samplers do: perf
// -a reads every process's mappings as it starts (a tenth of a second of
// CPU or more), work that would otherwise fall in the window. Its events
// are enabled once perf is ready, and it stops when the window ends.
type schedRecording struct {
	attached chan struct{} // closed when perf's events are enabled
	stop     chan struct{} // closed when the window ends
	once     sync.Once
}

// startWaits starts perf's recording of the service's context switches
// (unless --no-trace) for a window of window at most samplerLead from
// now; nil when the kernel has no scheduler tracepoint (one warning).
func (perfRecorder) startWaits(ctx context.Context, p *Set, wg *sync.WaitGroup, window time.Duration) waitRecording {
	if p.cfg.NoTrace {
		return nil
	}
	if err := capture.SchedAvailable(); err != nil {
		p.host.Warn(err.Error())
		return nil
	}
	r := &schedRecording{attached: make(chan struct{}), stop: make(chan struct{})}
	wg.Go(func() { p.perfSched(ctx, r, (samplerLead + window + time.Second).Seconds()) })
	return r
}

// waitAttached waits until perf records, ctx ends or deadline passes.
func (r *schedRecording) waitAttached(ctx context.Context, deadline time.Time) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-r.attached:
	case <-ctx.Done():
	case <-t.C:
	}
}

// begin says the window starts now: the recording stops when end is
// called, and a second after the window at the latest.
func (r *schedRecording) begin(_ context.Context, _ *sync.WaitGroup, window time.Duration) {
	time.AfterFunc(window+time.Second, r.end)
}

// end stops the recording: the window is over.
func (r *schedRecording) end() {
	r.once.Do(func() { close(r.stop) })
}

// perfSched runs the recording r for at most seconds and keeps its
// off-CPU stacks.
func (p *Set) perfSched(ctx context.Context, r *schedRecording, seconds float64) {
	var recorder int
	var used time.Duration
	prof, err := capture.PerfSchedRecord(ctx, capture.SchedConfig{PIDs: p.host.Service().PIDs(), Seconds: seconds, CPUUsed: &used,
		OnStart:    func(pid int) { recorder = pid; p.meter.started(pid, runfmt.ProfilerPerf, runfmt.RoleOffCPU, 0) },
		OnAttached: func() { close(r.attached) },
		Stop:       r.stop})
	p.meter.exited(recorder, used)
	if err != nil {
		if ctx.Err() == nil {
			p.host.Warn("off-CPU stacks: " + err.Error())
		}
		return
	}
	p.keep(runfmt.ProfileOffCPU, prof)
	p.saveAs(runfmt.ProfileOffCPU, runfmt.SourceTime(runfmt.TimeSourcePerfSched), nil, prof)
}
