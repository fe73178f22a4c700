package findings

import (
	"math"

	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

// Thresholds of the GOMAXPROCS rule.
const (
	// gomaxprocsFloor is the least GOMAXPROCS Go itself picks under a CPU
	// limit (Go 1.25+): never reported.
	gomaxprocsFloor = 2
	// gomaxprocsMinBusy is the share of its budget a service must use for
	// its GOMAXPROCS to matter.
	gomaxprocsMinBusy = 0.5
)

// gomaxprocsFinding reports a service running more Ps than its CPU budget
// allows while it is busy or waits for a CPU: its threads burst through
// the period's quota and then all wait, which adds latency and CPU (more
// threads to switch, more GC workers). Throttling is notable from
// answer.ThrottledNotable.
func gomaxprocsFinding(c *context) []ranked {
	in := c.in
	t, g := in.Target, in.GoRuntime
	if t == nil || g == nil || g.GOMAXPROCS <= 0 || t.CPULimitCores <= 0 {
		return nil
	}
	if limit := max(gomaxprocsFloor, int(math.Ceil(1.5*t.CPULimitCores))); g.GOMAXPROCS <= limit {
		return nil
	}
	st, traced := newSchedTime(in, c.tw)
	waitMs, how := cpuWait(in, c.cpu, st, traced)
	if lt := ledgerTime(in); lt != nil {
		ms, ok := ledgerCPUWait(lt)
		if !ok {
			return nil // the ledger finds no time lost to it
		}
		waitMs, how = ms, runfmt.WaitFromLedger
	}
	throttled := answer.ThrottledNotable(t.ThrottledPct)
	busy := t.CPUBound || throttled || t.CPUCoresMean >= gomaxprocsMinBusy*t.CPULimitCores
	if lat := meanLatency(in); !busy && (lat <= 0 || waitMs < waitMinShare*lat) {
		return nil // idle, and not waiting for a CPU: the extra Ps do not matter
	}
	f := runfmt.Finding{Kind: runfmt.FindingGOMAXPROCS, Advice: runfmt.AdviceMatchGOMAXPROCS, Figures: runfmt.Figures{
		runfmt.FigWaitPerRequest: 1000 * waitMs, runfmt.FigGOMAXPROCS: float64(g.GOMAXPROCS), runfmt.FigCPULimit: t.CPULimitCores,
		runfmt.FigThrottled: t.ThrottledPct / 100, runfmt.FigGOMAXPROCSMatch: float64(max(1, int(math.Ceil(t.CPULimitCores)))),
	}}
	if throttled {
		f.Figures[runfmt.FigThrottledTime] = t.ThrottledSeconds
	} else {
		f.Figures[runfmt.FigCoresMean], f.Figures[runfmt.FigRunqueueTime] = t.CPUCoresMean, t.RunqueueWaitSeconds
	}
	if in.Load != nil {
		f.Figures[runfmt.FigLatencyP99] = 1000 * in.Load.Latency.P99
	}
	if s := in.Time; s != nil && s.Scheduler != nil && s.Scheduler.GCCycles > 0 && s.Scheduler.GCStopMs > 0 {
		f.Figures[runfmt.FigGCStopMean] = 1000 * s.Scheduler.GCStopMs / float64(s.Scheduler.GCCycles)
	}
	f.Settings = f.Settings.With(runfmt.SettingGOMAXPROCSSource, g.GOMAXPROCSSource).
		With(runfmt.SettingGOMAXPROCSEnv, g.GOMAXPROCSEnv).With(runfmt.SettingWaitMethod, how)
	return []ranked{{f: f, rank: f.Figures[runfmt.FigWaitPerRequest]}}
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
		return max(0, rest), runfmt.WaitFromLatency
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
		return rest, runfmt.WaitFromLatencyAndTrace
	}
	return st.total(), runfmt.WaitFromTrace
}

// ledgerCPUWait is the time a request lost to a budget its threads burst
// through: the ledger's throttled row, else (not throttled) its runnable
// row; ok is false when neither holds a share worth a finding.
func ledgerCPUWait(t *runfmt.TimeAccount) (float64, bool) {
	if ms, ok := rowsMs(t, runfmt.PartThrottled); ok && claimable(t, ms) {
		return ms, true
	}
	if ms, ok := rowsMs(t, runfmt.PartRunnable); ok && claimable(t, ms) {
		return ms, true
	}
	return 0, false
}

func meanLatency(in FindingInput) float64 {
	if in.Load == nil {
		return 0
	}
	return in.Load.Latency.Mean
}
