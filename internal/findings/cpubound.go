package findings

import "perflab/internal/runfmt"

// cpuBound reports that the service ran at its CPU budget: the state
// the other findings explain, ranked after them.
func cpuBound(c *context) []ranked {
	t := c.in.Target
	if t == nil || !t.CPUBound && !atCPUBudget(c.in) {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingCPUBound, Advice: runfmt.AdviceCheaperOrMoreCPU,
		Figures: runfmt.Figures{runfmt.FigShare: 1, runfmt.FigCoresMean: t.CPUCoresMean, runfmt.FigCoresMax: t.CPUCoresMax}}
	if c.cpu.UsPerRequest > 0 {
		f.Figures[runfmt.FigCPUPerRequest] = c.cpu.UsPerRequest
	}
	if t.CPULimitCores > 0 {
		f.Figures[runfmt.FigCPULimit] = t.CPULimitCores
		f.Figures[runfmt.FigThrottled] = t.ThrottledPct / 100
		if t.CPUMsPerRequest > 0 {
			f.Figures[runfmt.FigMaxRPS] = t.CPULimitCores * 1000 / t.CPUMsPerRequest
		}
	}
	queueing(c, &f)
	return []ranked{{f: f, rank: 1}}
}

// queueing adds, from the ledger, the time requests queued behind the
// service's own CPU at its budget: waiting to be accepted, to be read,
// for a CPU, and throttled (unless a finding names the throttling's
// cause), with the requests in flight per core of the budget. At the
// budget this is not I/O: N requests share one core.
func queueing(c *context, f *runfmt.Finding) {
	lt, in := ledgerTime(c.in), c.in
	if lt == nil || !atCPUBudget(in) || in.Load == nil || in.Load.RPS <= 0 {
		return
	}
	parts := []runfmt.LedgerPart{runfmt.PartAccept, runfmt.PartQueue, runfmt.PartRunnable}
	if !foundKind(c.found, runfmt.FindingGOMAXPROCS) && !foundKind(c.found, runfmt.FindingThrottled) {
		parts = append(parts, runfmt.PartThrottled)
	}
	ms, ok := rowsMs(lt, parts...)
	if !ok || !claimable(lt, ms) {
		return
	}
	cores := in.Target.CPULimitCores
	if cores <= 0 {
		cores = in.Target.CPUCoresMean
	}
	inFlight := in.Load.RPS * lt.LatencyMs / 1000 // Little's law
	f.Figures[runfmt.FigWaitPerRequest], f.Figures[runfmt.FigInFlight] = 1000*ms, inFlight
	f.Figures[runfmt.FigPerCore], f.Figures[runfmt.FigLatency] = inFlight/max(cores, 1e-9), 1000*lt.LatencyMs
	f.Settings = f.Settings.With(runfmt.SettingWaitMethod, runfmt.WaitFromLedger)
}
