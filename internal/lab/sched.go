package lab

import (
	"context"

	"perflab/internal/capture"
)

// perfSched records the scheduler's context switches of a native service
// beside perf's CPU profile: where its threads wait off a CPU.
func (p *profileSet) perfSched(ctx context.Context, seconds float64) {
	if err := capture.SchedAvailable(); err != nil {
		p.s.warn(err.Error())
		return
	}
	prof, err := capture.PerfSchedRecord(ctx, capture.SchedConfig{PIDs: p.s.proc.PIDs(), Seconds: seconds})
	if err != nil {
		if ctx.Err() == nil {
			p.s.warn("off-CPU stacks: " + err.Error())
		}
		return
	}
	p.mu.Lock()
	p.sched = prof
	p.mu.Unlock()
	p.saveAs("offcpu", "perf-sched", nil, prof)
}
