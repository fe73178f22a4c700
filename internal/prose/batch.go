package prose

import "perflab/internal/runfmt"

// batchWords word a batch program's findings (package findings'
// BatchFindings makes them, from the run's figures): serial work, and,
// told apart from a service's findings of the same kinds by their advice,
// a program that waited for a CPU and one its budget throttled.
var batchWords = words{
	kinds: map[runfmt.FindingKind]wording{runfmt.FindingSerial: {title: serialTitle, detail: serialDetail,
		advice: advices{runfmt.AdviceFanOut: serialAdvice, runfmt.AdviceWorkerPool: serialAdvice}}},
	variants: map[runfmt.Advice]wording{
		runfmt.AdviceMeasureAlone: {title: starvedTitle, detail: starvedDetail, advice: advices{runfmt.AdviceMeasureAlone: fixed(
			"Measure it alone, or give it CPUs of its own (--service-cpus) or a cgroup that the scheduler serves first.")}},
		runfmt.AdviceLargerBudget: {title: budgetTitle, detail: budgetDetail, advice: advices{runfmt.AdviceLargerBudget: budgetAdvice}},
	},
}

// "serial: 1 of 8 cores busy"
func serialTitle(v view, p *Prose) {
	p.say("serial: %v of %v cores busy", v.fig(runfmt.FigCoresMean), v.fig(runfmt.FigUsableCores))
}

func serialDetail(v view, p *Prose) {
	p.say("For the %v it ran, the program used %v cores on average (%v of CPU), of the %v it could use (host %v, cpuset %v",
		v.fig(runfmt.FigWallTime), v.fig(runfmt.FigCoresMean), v.fig(runfmt.FigCPUTime), v.fig(runfmt.FigUsableCores),
		v.fig(runfmt.FigHostCores), v.fig(runfmt.FigCPUSetCores))
	if v.has(runfmt.FigGOMAXPROCS) {
		p.say(", GOMAXPROCS %v", v.fig(runfmt.FigGOMAXPROCS))
	}
	p.words(")")
	if v.has(runfmt.FigThreadsWaiting) {
		p.say(", and its threads waited for a CPU %v at a time on average: more cores were free for it", v.fig(runfmt.FigThreadsWaiting))
	} else {
		p.words(" (its wait for a CPU was not measured: other work on the machine may have held it back)")
	}
	p.words(". Its work runs one step after another.")
}

// serialAdvice says how to spread the work (in Go, over GOMAXPROCS
// goroutines), naming the user function that does most of it.
func serialAdvice(v view, p *Prose) {
	if v.f.Advice == runfmt.AdviceFanOut {
		p.say("Split the work over the cores: fan the independent inputs out to %v goroutines, each working on its share, and combine their results",
			code("runtime.GOMAXPROCS(0)"))
	} else {
		p.words("Split the work over the cores: independent inputs handled by a pool of workers, one per core")
	}
	if e, ok := v.f.Culprit(); ok {
		p.say("; %v does %v of its CPU", code(e.Function), efig(e, runfmt.FigShare))
		if e.Callee != "" {
			p.say(" (most in %v under it)", code(e.Callee))
		}
	}
	if v.has(runfmt.FigCPULimit) {
		p.say(". The budget (%v) caps what more cores can give", code("--cpus "+format(runfmt.MeasureCores, v.val(runfmt.FigCPULimit))))
	}
	p.words(".")
}

// "waited for a CPU: 1.5 threads at a time on average"
func starvedTitle(v view, p *Prose) {
	p.say("waited for a CPU: %v threads at a time on average", v.fig(runfmt.FigThreadsWaiting))
}

func starvedDetail(v view, p *Prose) {
	p.say("Its threads waited %v for a CPU (%v) over its %v, against %v on one: other work on the machine, "+
		"or a budget, held it back, so its wall time and the %v cores it used say more about the machine than about the program "+
		"(whether it runs its work one step at a time cannot be told).",
		v.fig(runfmt.FigRunqueueTime), word(v.set(runfmt.SettingSource)), v.fig(runfmt.FigWallTime), v.fig(runfmt.FigCPUTime), v.fig(runfmt.FigCoresMean))
}

// "budget: --cpus 0.5 throttled it in 60% of its periods"
func budgetTitle(v view, p *Prose) {
	p.say("budget: %v throttled it in %v of its periods", code("--cpus "+format(runfmt.MeasureCores, v.val(runfmt.FigCPULimit))), v.fig(runfmt.FigThrottled))
}

func budgetDetail(v view, p *Prose) {
	p.say("The CPU quota stopped the program for %v of its %v (it used %v cores on average):",
		v.fig(runfmt.FigThrottledTime), v.fig(runfmt.FigWallTime), v.fig(runfmt.FigCoresMean))
}

func budgetAdvice(v view, p *Prose) {
	p.words("it could run faster with a larger --cpus")
	if v.has(runfmt.FigGOMAXPROCSMatch) {
		p.say(", or waste less of its quota with %v (it runs Go code on %v threads for %v cores)",
			code("GOMAXPROCS="+format(runfmt.MeasureCount, v.val(runfmt.FigGOMAXPROCSMatch))), v.fig(runfmt.FigGOMAXPROCS), v.fig(runfmt.FigCPULimit))
	}
	p.words(".")
}
