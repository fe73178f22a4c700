package prose

import "perflab/internal/runfmt"

// gomaxprocsWords word a service running more Ps than its CPU budget
// allows.
var gomaxprocsWords = oneKind(runfmt.FindingGOMAXPROCS,
	func(v view, p *Prose) {
		p.say("GOMAXPROCS %v above the %v-core CPU budget: requests wait %v each for a CPU", v.fig(runfmt.FigGOMAXPROCS), v.fig(runfmt.FigCPULimit), v.fig(runfmt.FigWaitPerRequest))
	},
	gomaxprocsDetail, advices{runfmt.AdviceMatchGOMAXPROCS: gomaxprocsAdvice})

// waitMethods say how the wait for a CPU was found.
var waitMethods = map[string]string{
	runfmt.WaitFromLatency:         "its mean latency beyond its CPU per request",
	runfmt.WaitFromLatencyAndTrace: "its mean latency beyond its CPU and the waits the execution trace names",
	runfmt.WaitFromTrace:           "runnable in Go's run queue, or running for Go while the kernel held the thread off a CPU, from the execution trace",
	runfmt.WaitFromLedger:          "the request ledger's throttled row, else its runnable row",
}

func gomaxprocsDetail(v view, p *Prose) {
	procs, limit := v.fig(runfmt.FigGOMAXPROCS), v.fig(runfmt.FigCPULimit)
	p.say("The service runs %v Ps (%v) under a %v-core budget: up to %v threads run at once on what it allows.",
		procs, word(v.set(runfmt.SettingGOMAXPROCSSource)), limit, procs)
	if v.has(runfmt.FigThrottledTime) {
		p.say(" They burst through each period's CPU quota and then all wait: throttled in %v of periods (%v in the window).", v.fig(runfmt.FigThrottled), v.fig(runfmt.FigThrottledTime))
	} else {
		p.say(" It used %v cores on average and was throttled in %v of periods; its threads also waited %v in the kernel's run queue (the machine's other processes take cores too).",
			v.fig(runfmt.FigCoresMean), v.fig(runfmt.FigThrottled), v.fig(runfmt.FigRunqueueTime))
	}
	p.say(" Requests waited %v each for a CPU (%v)", v.fig(runfmt.FigWaitPerRequest), word(waitMethods[v.set(runfmt.SettingWaitMethod)]))
	if v.has(runfmt.FigLatencyP99) {
		p.say("; p99 latency %v", v.fig(runfmt.FigLatencyP99))
	}
	p.words(".")
	if v.has(runfmt.FigGCStopMean) {
		p.say(" Each collection stopped the world for %v on average, waiting for all %v Ps to stop.", v.fig(runfmt.FigGCStopMean), procs)
	}
}

func gomaxprocsAdvice(v view, p *Prose) {
	p.say("Match GOMAXPROCS to the budget (%v): fewer threads contend for the quota and the GC runs fewer workers.",
		code("GOMAXPROCS="+format(runfmt.MeasureCount, v.val(runfmt.FigGOMAXPROCSMatch))))
	if env := v.set(runfmt.SettingGOMAXPROCSEnv); env != "" {
		p.say(" The environment sets %v; without it Go 1.25+ derives GOMAXPROCS from the cgroup's CPU limit (rounded up, at least 2).", code("GOMAXPROCS="+env))
	} else {
		p.words(" Go 1.25+ derives GOMAXPROCS from the cgroup's CPU limit when it is not set: an older Go, runtime.GOMAXPROCS in the code or a limit set after start keeps it high.")
	}
}
