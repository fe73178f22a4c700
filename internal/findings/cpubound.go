package findings

import "perflab/internal/runfmt"

// cpuBoundRule reports that the service ran at its CPU budget: the state
// the other findings explain, ranked after them.
var cpuBoundRule = oneKind(runfmt.FindingCPUBound, cpuBound, cpuBoundTitle, cpuBoundDetail, advices{
	runfmt.AdviceCheaperOrMoreCPU: fixed("Throughput grows only by making requests cheaper (see the findings above) or by giving the service more CPU."),
})

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

// "CPU-bound: 8 requests share one core, 12.0 ms/request queued for it",
// else "CPU-bound: 1.97 cores used of a 2-core budget"
func cpuBoundTitle(v view, p *Prose) {
	if v.has(runfmt.FigPerCore) {
		p.say("CPU-bound: %v requests share one core, %v/request queued for it", v.fig(runfmt.FigPerCore), v.fig(runfmt.FigWaitPerRequest))
		return
	}
	p.say("CPU-bound: %v cores used", v.fig(runfmt.FigCoresMean))
	if v.has(runfmt.FigCPULimit) {
		p.say(" of a %v-core budget", v.fig(runfmt.FigCPULimit))
	}
}

func cpuBoundDetail(v view, p *Prose) {
	p.say("The target used %v cores on average (max %v)", v.fig(runfmt.FigCoresMean), v.fig(runfmt.FigCoresMax))
	if v.has(runfmt.FigCPULimit) {
		p.say(" of its %v-core budget and was throttled %v of periods", v.fig(runfmt.FigCPULimit), v.fig(runfmt.FigThrottled))
	}
	if v.has(runfmt.FigCPUPerRequest) {
		p.say("; each request costs %v of CPU", v.fig(runfmt.FigCPUPerRequest))
		if v.has(runfmt.FigMaxRPS) {
			p.say(", so the budget caps throughput near %v requests/s", v.fig(runfmt.FigMaxRPS))
		}
	}
	p.words(".")
	if v.has(runfmt.FigPerCore) {
		p.say(" %v requests were in flight on average (throughput × the %v mean latency): each waits %v to be accepted, read and run behind the others' CPU (the request ledger's accept, queue, runnable and throttled rows), not for I/O.",
			v.fig(runfmt.FigInFlight), v.fig(runfmt.FigLatency), v.fig(runfmt.FigWaitPerRequest))
	}
}
