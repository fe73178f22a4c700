package profiling

import (
	"fmt"
	"time"

	"perflab/internal/target"
)

// sampledFrom keeps, once each, the CPU that workers started during the
// window used before their recorder sampled them (it says so now): a
// worker forked or recycled in the window imports and sets up before
// any profiler can attach, and that CPU is measured but in no sample.
// A worker runs an executable the service ran at the first look; a
// process of another program (one the service starts per request, say)
// is no start-up, and its CPU before it was sampled stays unexplained.
// A process seen within a refresh of the window's start may have been
// born before it, with CPU outside the window: it is left out, so the
// figure errs low.
func (t *treeSampler) sampledFrom(procs []target.ProcessInfo) {
	now := time.Now()
	for _, p := range procs {
		t.mu.Lock()
		_, kept := t.unsampled[p.PID]
		seen := t.seenAt[p.PID]
		inWindow := !t.begun.IsZero() && seen.Sub(t.begun) > treeRefresh && now.Before(t.end)
		worker := p.Exe != "" && t.ownExes[p.Exe]
		t.mu.Unlock()
		if kept || !inWindow || !worker {
			continue
		}
		cpu, err := target.ProcessCPUSeconds(p.PID)
		if err != nil {
			continue // gone: its CPU went to its parent's
		}
		t.mu.Lock()
		t.unsampled[p.PID] = cpu
		t.mu.Unlock()
	}
}

// unsampledStart is the CPU of workers started during the window before
// they were sampled, and how many they were.
func (t *treeSampler) unsampledStart() (seconds float64, procs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, cpu := range t.unsampled {
		seconds += cpu
	}
	return seconds, len(t.unsampled)
}

// unsampledNote says what the workers started during the window used
// before they were sampled, or "".
func (t *treeSampler) unsampledNote() string {
	cpu, n := t.unsampledStart()
	if n == 0 || cpu <= 0 {
		return ""
	}
	return fmt.Sprintf("%d worker(s) started during the window used %.2f CPU-s before their profiler sampled them (their start-up): measured, in no sample, counted apart from the profile's functions", n, cpu)
}
