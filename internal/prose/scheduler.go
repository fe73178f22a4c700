package prose

import "perflab/internal/runfmt"

// schedulerWords word requests ready to run but not running.
var schedulerWords = oneKind(runfmt.FindingSchedulerLatency,
	func(v view, p *Prose) {
		p.say("scheduler latency: %v/request ready to run but not running", v.fig(runfmt.FigWaitPerRequest))
	},
	schedulerDetail, advices{
		runfmt.AdviceMoreCPU: fixed("More runnable goroutines than Ps, or a machine busy with other work: give the service more CPU, or make requests cheaper."),
	})

func schedulerDetail(v view, p *Prose) {
	p.say("Request goroutines waited %v per request for a P (runnable in Go's run queue)", v.fig(runfmt.FigRunnable))
	if v.has(runfmt.FigKernelWait) {
		p.say(" and ran %v per request longer than the CPU they used (their threads waited for a CPU in the kernel)", v.fig(runfmt.FigKernelWait))
	}
	p.words(".")
	if v.has(runfmt.FigGOMAXPROCS) {
		p.say(" The %v Ps were busy %v of the traced time.", v.fig(runfmt.FigGOMAXPROCS), v.fig(runfmt.FigPBusy))
	}
	if v.has(runfmt.FigRunqueueTime) {
		p.say(" The kernel kept the service's threads waiting %v in its run queue over the window: other processes take the cores (not I/O or locks).", v.fig(runfmt.FigRunqueueTime))
	}
}
