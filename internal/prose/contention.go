package prose

import (
	"strconv"

	"perflab/internal/runfmt"
)

// contentionWords word requests that wait for a CPU: who held the CPUs
// and what to do.
var contentionWords = oneKind(runfmt.FindingCPUContention, contentionTitle, contentionDetail, contentionAdvice())

// runqueueText is "0.80 ms (the service's threads 0.50 ms, the load
// generator's 0.30 ms)".
func runqueueText(v view, p *Prose, total runfmt.Figure) {
	p.say("%v (the service's threads %v, the load generator's %v)", v.fig(total), v.fig(runfmt.FigServiceQueue), v.fig(runfmt.FigGeneratorQueue))
}

func contentionTitle(v view, p *Prose) {
	p.say("requests wait for a CPU: %v per request runnable but not running", v.fig(runfmt.FigWaitPerRequest))
}

func contentionDetail(v view, p *Prose) {
	p.say("A request takes %v on average and uses %v of CPU; ", v.fig(runfmt.FigLatency), v.fig(runfmt.FigCPU))
	runqueueText(v, p, runfmt.FigWaitPerRequest)
	p.say(" per request was spent waiting in the kernel's run queue (the service's threads %v in the window while they ran %v, using %v cores",
		v.fig(runfmt.FigRunqueueTime), v.fig(runfmt.FigCPUTime), v.fig(runfmt.FigCoresMean))
	if v.has(runfmt.FigCPULimit) {
		p.say(" of a %v-core budget", v.fig(runfmt.FigCPULimit))
	}
	p.words("). This is not I/O or lock waiting. ")
	whoHeldTheCPUs(v, p)
}

// whoHeldTheCPUs names what used the CPUs during the window.
func whoHeldTheCPUs(v view, p *Prose) {
	if !v.has(runfmt.FigPerflabCores) {
		p.words("Other processes, the load generator, or the service's own threads beyond its cores held the CPUs.")
		return
	}
	p.words("Who held the CPUs: ")
	if v.has(runfmt.FigOtherCores) {
		p.say("other processes used %v of %v cores", v.fig(runfmt.FigOtherCores), v.fig(runfmt.FigHostCores))
		if ps := v.f.Evidence.Processes; len(ps) > 0 {
			p.words(": ")
			p.join(", ", len(ps), func(i int) {
				p.say("%v (pid %v) %v", code(ps[i].Name), word(strconv.Itoa(ps[i].PID)), quantity(runfmt.MeasureCores, ps[i].Cores))
			})
		}
		p.words("; ")
	}
	p.say("perflab (the load generator) used %v cores", v.fig(runfmt.FigPerflabCores))
	if v.has(runfmt.FigStealCores) {
		p.say("; the hypervisor took %v cores (steal)", v.fig(runfmt.FigStealCores))
	}
	p.say("; the service %v.", v.fig(runfmt.FigServiceCores))
}

// contentionAdvice says how to measure cleanly, and what to change in
// the service's runtime's terms when it runs more busy threads than its
// budget has cores.
func contentionAdvice() advices {
	const clean = "Latency and throughput measured this way are inflated; CPU per request and allocations far less (they count CPU time, not waiting). " +
		"To measure cleanly: give the service and the load generator their own cores (--service-cpus and --load-cpus), " +
		"stop the other busy processes, or run the load from another machine; "
	return advices{
		runfmt.AdviceLowerGOMAXPROCS: fixed(clean + "if the service runs more busy threads than its budget has cores, lower GOMAXPROCS."),
		runfmt.AdviceFewerWorkers:    fixed(clean + "if the service runs more busy workers than its budget has cores, run fewer workers (gunicorn -w, puma -w)."),
		runfmt.AdviceFewerProcesses:  fixed(clean + "if the service runs more busy processes or worker threads than its budget has cores, run fewer."),
		runfmt.AdviceShrinkPools:     fixed(clean + "if the service runs more busy threads than its budget has cores, shrink its thread pools."),
	}
}
