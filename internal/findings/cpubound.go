package findings

import "perflab/internal/runfmt"

// cpuBoundRule reports that the service ran at its CPU budget: the state
// the other findings explain, ranked after them.
var cpuBoundRule = oneKind(runfmt.FindingCPUBound, cpuBound, cpuBoundTitle, cpuBoundDetail, advices{
	runfmt.AdviceCheaperOrMoreCPU: fixed("Throughput grows only by making requests cheaper (see the findings above) or by giving the service more CPU."),
})

func cpuBound(c *context) []ranked {
	t := c.in.Target
	if t == nil || !t.CPUBound {
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
	return []ranked{{f, 1}}
}

// "CPU-bound: 1.97 cores used of a 2-core budget"
func cpuBoundTitle(v view, p *Prose) {
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
}
