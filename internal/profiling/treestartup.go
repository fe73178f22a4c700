package profiling

import (
	"fmt"
	"time"

	"perflab/internal/service"
)

// sampledFrom keeps, once each, the CPU that workers started during the
// window used before their recorder sampled them (it says so now): a
// worker forked or recycled in the window imports and sets up before
// any profiler can attach, and that CPU is measured but in no sample.
// A worker runs an executable the service ran at the first look; a
// process of another program (one the service starts per request, say)
// is no start-up, and its CPU before it was sampled stays unexplained.
// A process is started in the window when the kernel's start time says
// so; one started in the tick the window began is left out (its CPU may
// be partly before it), so the figure errs low.
func (t *treeSampler) sampledFrom(procs []service.ProcessInfo) {
	t.keepStartUp(procs, false)
}

// unsampledAtEnd keeps, at the window's end, the CPU of the workers
// started in it that were never sampled: those whose recorder never
// said it sampled, and those no look at the process list saw (forked in
// the window's last moments, or while a busy machine delayed the looks,
// as a pre-fork server's replacement workers can be). All of their CPU
// is in no sample.
func (t *treeSampler) unsampledAtEnd() {
	var procs []service.ProcessInfo
	t.mu.Lock()
	for _, r := range t.recs {
		if r.signals && !r.ready {
			procs = append(procs, r.procs...)
		}
	}
	t.mu.Unlock()
	t.keepStartUp(append(procs, t.unseen()...), true)
}

// unseen are the service's processes now that no look saw, with their
// executables (a process gone or unreadable is left out).
func (t *treeSampler) unseen() []service.ProcessInfo {
	var procs []service.ProcessInfo
	for _, pid := range t.list() {
		t.mu.Lock()
		_, seen := t.procs[pid]
		t.mu.Unlock()
		if seen {
			continue
		}
		if exe, err := service.ExeOf(pid); err == nil {
			procs = append(procs, service.ProcessInfo{PID: pid, Exe: exe})
		}
	}
	return procs
}

// keepStartUp keeps the CPU so far of the workers among procs started
// during the window; before its end unless atEnd.
func (t *treeSampler) keepStartUp(procs []service.ProcessInfo, atEnd bool) {
	now := time.Now()
	for _, p := range procs {
		t.mu.Lock()
		_, kept := t.unsampled[p.PID]
		begun, end := t.begun, t.end
		worker := p.Exe != "" && t.ownExes[p.Exe]
		t.mu.Unlock()
		if kept || !worker || begun.IsZero() || !atEnd && !now.Before(end) {
			continue
		}
		times, err := service.ReadProcessTimes(p.PID)
		if err != nil || !times.Started.After(begun) {
			continue // gone (its CPU went to its parent's), or born before the window
		}
		t.mu.Lock()
		t.unsampled[p.PID] = times.CPUSeconds
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
