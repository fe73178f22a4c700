package prose

import "perflab/internal/runfmt"

// cpuBoundWords word a service that ran at its CPU budget.
var cpuBoundWords = oneKind(runfmt.FindingCPUBound, cpuBoundTitle, cpuBoundDetail, advices{
	runfmt.AdviceCheaperOrMoreCPU: fixed("Throughput grows only by making requests cheaper (see the findings above) or by giving the service more CPU."),
})

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
