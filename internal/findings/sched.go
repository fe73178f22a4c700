package findings

import (
	"fmt"
	"math"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// Thresholds of the scheduler rules.
const (
	// gomaxprocsMinThrottled is the share of throttled periods (percent)
	// from which GOMAXPROCS above the budget matters: the throttling the
	// report highlights.
	gomaxprocsMinThrottled = runfmt.ThrottledNotablePct
	// gomaxprocsFloor is the least GOMAXPROCS Go itself picks under a CPU
	// limit (Go 1.25+): never reported.
	gomaxprocsFloor = 2
	// gomaxprocsMinBusy is the share of its budget a service must use for
	// its GOMAXPROCS to matter.
	gomaxprocsMinBusy = 0.5
)

// schedTime is the time a request waited for a CPU: runnable in Go's run
// queue (not after a wait: that belongs to the wait) and, from a Go trace,
// running for Go while the kernel held its thread off a CPU (the trace's
// running time beyond the CPU measured per request).
type schedTime struct {
	runnableMs, kernelMs float64
}

func (s schedTime) total() float64 { return s.runnableMs + s.kernelMs }

func newSchedTime(in FindingInput, tw *timeWaits) (schedTime, bool) {
	if tw.v == nil || in.Time == nil || in.Time.Source != runfmt.TimeSourceGoTrace {
		return schedTime{}, false
	}
	var st schedTime
	if c := tw.v.Classes[runfmt.WaitRunnable]; c != nil {
		st.runnableMs = tw.v.Ms(c.Costs.Total())
	}
	if c := tw.v.Classes[runfmt.WaitCPU]; c != nil && in.Target != nil && in.Target.CPUMsPerRequest > 0 {
		st.kernelMs = max(0, tw.v.Ms(c.Costs.Total())-in.Target.CPUMsPerRequest)
	}
	return st, true
}

// schedulerFindings reports GOMAXPROCS above the CPU budget when the service
// is throttled, else scheduler latency that is not explained by running at
// the budget.
func schedulerFindings(in FindingInput, cpu *cpuView, tw *timeWaits) []ranked {
	st, traced := newSchedTime(in, tw)
	if f, ok := gomaxprocsFinding(in, cpu, st, traced); ok {
		return []ranked{{f, f.WaitUsPerRequest}}
	}
	if !traced || in.Target == nil || in.Target.CPUBound {
		return nil // at the budget, waiting for a CPU is the CPU findings' consequence
	}
	ms := st.total()
	if ms < waitMinMs || ms < waitMinShare*in.Time.TotalMs {
		return nil
	}
	if rq := runqueueOf(in); rq.serviceMs >= 0.5*ms || rq.starved {
		return nil // the machine's other processes hold the cores: cpu-contention says so
	}
	if in.Load != nil && cpu.UsPerRequest > 0 {
		if _, ok := cpuContention(in, runqueueOf(in), in.Load.Latency.Mean, cpu.UsPerRequest/1000); ok {
			return nil // the same: it names who held the cores
		}
	}
	f := runfmt.Finding{Kind: runfmt.FindingSchedulerLatency, WaitUsPerRequest: 1000 * ms, Share: ms / in.Time.TotalMs}
	f.Title = fmt.Sprintf("scheduler latency: %s/request ready to run but not running", units.FormatMs(ms))
	var d strings.Builder
	fmt.Fprintf(&d, "Request goroutines waited %s per request for a P (runnable in Go's run queue)", units.FormatMs(st.runnableMs))
	if st.kernelMs > 0 {
		fmt.Fprintf(&d, " and ran %s per request longer than the CPU they used (their threads waited for a CPU in the kernel)", units.FormatMs(st.kernelMs))
	}
	d.WriteString(".")
	if s := in.Time.Scheduler; s != nil {
		fmt.Fprintf(&d, " The %d Ps were busy %.0f%% of the traced time.", s.GOMAXPROCS, s.PBusyPct)
	}
	if t := in.Target; t.RunqueueWaitSeconds > 0 && in.Requests > 0 {
		fmt.Fprintf(&d, " The kernel kept the service's threads waiting %.2f s in its run queue over the window: other processes take the cores (not I/O or locks).", t.RunqueueWaitSeconds)
	}
	d.WriteString(" More runnable goroutines than Ps, or a machine busy with other work: give the service more CPU, or make requests cheaper.")
	f.Detail = d.String()
	return []ranked{{f, f.WaitUsPerRequest}}
}

// gomaxprocsFinding reports a service running more Ps than its CPU budget
// allows while it is throttled: its threads burst through the period's
// quota and then all wait, which adds latency and CPU (more threads to
// switch, more GC workers).
func gomaxprocsFinding(in FindingInput, cpu *cpuView, st schedTime, traced bool) (runfmt.Finding, bool) {
	t, g := in.Target, in.GoRuntime
	if t == nil || g == nil || g.GOMAXPROCS <= 0 || t.CPULimitCores <= 0 {
		return runfmt.Finding{}, false
	}
	limit := max(gomaxprocsFloor, int(math.Ceil(1.5*t.CPULimitCores)))
	if g.GOMAXPROCS <= limit {
		return runfmt.Finding{}, false
	}
	waitMs, how := cpuWait(in, cpu, st, traced)
	busy := t.CPUBound || t.ThrottledPct >= gomaxprocsMinThrottled || t.CPUCoresMean >= gomaxprocsMinBusy*t.CPULimitCores
	if lat := meanLatency(in); !busy && (lat <= 0 || waitMs < waitMinShare*lat) {
		return runfmt.Finding{}, false // idle, and not waiting for a CPU: the extra Ps do not matter
	}
	match := max(1, int(math.Ceil(t.CPULimitCores)))
	f := runfmt.Finding{Kind: runfmt.FindingGOMAXPROCS, WaitUsPerRequest: 1000 * waitMs}
	f.Title = fmt.Sprintf("GOMAXPROCS %d above the %g-core CPU budget: requests wait %s each for a CPU", g.GOMAXPROCS, t.CPULimitCores, units.FormatMs(waitMs))
	var d strings.Builder
	fmt.Fprintf(&d, "The service runs %d Ps (%s) under a budget of %g cores: up to %d threads run at once on what %g cores allow.", g.GOMAXPROCS, g.GOMAXPROCSSource, t.CPULimitCores, g.GOMAXPROCS, t.CPULimitCores)
	if t.ThrottledPct >= gomaxprocsMinThrottled {
		fmt.Fprintf(&d, " They burst through each period's CPU quota and then all wait: throttled in %.0f%% of periods (%.2f s in the window).", t.ThrottledPct, t.ThrottledSeconds)
	} else {
		fmt.Fprintf(&d, " It used %.2f cores on average and was throttled in %.0f%% of periods; its threads also waited %.2f s in the kernel's run queue (the machine's other processes take cores too).", t.CPUCoresMean, t.ThrottledPct, t.RunqueueWaitSeconds)
	}
	fmt.Fprintf(&d, " Requests waited %s each for a CPU (%s)", units.FormatMs(waitMs), how)
	if in.Load != nil {
		fmt.Fprintf(&d, "; p99 latency %s", units.FormatMs(in.Load.Latency.P99))
	}
	d.WriteString(".")
	if s := in.Time; s != nil && s.Scheduler != nil && s.Scheduler.GCCycles > 0 && s.Scheduler.GCStopMs > 0 {
		fmt.Fprintf(&d, " Each collection stopped the world for %.2f ms on average, waiting for all %d Ps to stop.", s.Scheduler.GCStopMs/float64(s.Scheduler.GCCycles), g.GOMAXPROCS)
	}
	fmt.Fprintf(&d, " Match GOMAXPROCS to the budget (GOMAXPROCS=%d): fewer threads contend for the quota and the GC runs fewer workers.", match)
	if g.GOMAXPROCSEnv != "" {
		fmt.Fprintf(&d, " The environment sets GOMAXPROCS=%s; without it Go 1.25+ derives GOMAXPROCS from the cgroup's CPU limit (rounded up, at least 2).", g.GOMAXPROCSEnv)
	} else {
		d.WriteString(" Go 1.25+ derives GOMAXPROCS from the cgroup's CPU limit when it is not set: an older Go, runtime.GOMAXPROCS in the code or a limit set after start keeps it high.")
	}
	f.Detail = d.String()
	return f, true
}

// cpuWait is how long a request waited for a CPU, and how that was found:
// its latency beyond its CPU and the waits the trace names that a CPU does
// not end (network, sync, sleep; system calls and GC stops do stretch when
// threads wait for a CPU), or from the trace alone (runnable, and running
// for Go while the kernel held the thread off a CPU) when that is more;
// without a trace, the latency beyond the CPU.
func cpuWait(in FindingInput, cpu *cpuView, st schedTime, traced bool) (float64, string) {
	rest := -1.0
	if in.Load != nil && in.Load.Latency.Mean > 0 && cpu.UsPerRequest > 0 {
		rest = in.Load.Latency.Mean - cpu.UsPerRequest/1000
	}
	if !traced {
		return max(0, rest), "its mean latency beyond its CPU per request"
	}
	if rest >= 0 && in.Time != nil {
		for _, k := range in.Time.Kinds {
			switch k.Kind {
			case runfmt.TimeNetwork, runfmt.TimeSync, runfmt.TimeSleep:
				rest -= k.MsPerRequest
			}
		}
	}
	if rest > st.total() {
		return rest, "its mean latency beyond its CPU and the waits the execution trace names"
	}
	return st.total(), "runnable in Go's run queue, or running for Go while the kernel held the thread off a CPU, from the execution trace"
}

func meanLatency(in FindingInput) float64 {
	if in.Load == nil {
		return 0
	}
	return in.Load.Latency.Mean
}
