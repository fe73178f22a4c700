package findings

import "perflab/internal/runfmt"

// Thresholds of a batch program's findings.
const (
	// serialCoresMax: at most this many cores busy on average (CPU over
	// wall time) is one line of work at a time...
	serialCoresMax = 1.3
	// serialCoresMin: ...when at least this many were (below, it mostly
	// waited: not serial work but sleep or I/O).
	serialCoresMin = 0.5
	// serialMinWallS: shorter programs are not judged.
	serialMinWallS = 0.2
	// starvedWaiting: with more than this many threads waiting for a CPU
	// on average, the cores used say more about the machine than about
	// the program.
	starvedWaiting = 0.75
)

// batchRule words a batch program's findings (BatchFindings makes them,
// from the run's figures): serial work, and, told apart from a service's
// findings of the same kinds by their advice, a program that waited for
// a CPU and one its budget throttled.
var batchRule = rule{
	words: map[runfmt.FindingKind]wording{runfmt.FindingSerial: {title: serialTitle, detail: serialDetail,
		advice: advices{runfmt.AdviceFanOut: serialAdvice, runfmt.AdviceWorkerPool: serialAdvice}}},
	variants: map[runfmt.Advice]wording{
		runfmt.AdviceMeasureAlone: {title: starvedTitle, detail: starvedDetail, advice: advices{runfmt.AdviceMeasureAlone: fixed(
			"Measure it alone, or give it CPUs of its own (--service-cpus) or a cgroup that the scheduler serves first.")}},
		runfmt.AdviceLargerBudget: {title: budgetTitle, detail: budgetDetail, advice: advices{runfmt.AdviceLargerBudget: budgetAdvice}},
	},
}

// BatchFindings are the findings of a batch program's run from its
// figures: serial work on a machine of several cores, a machine too busy
// to tell, and a CPU budget that held it back. hot are its hot functions
// (user code first), whose first names the work to spread.
func BatchFindings(b *runfmt.Batch, hot []runfmt.HotFunc) []runfmt.Finding {
	var out []runfmt.Finding
	for _, find := range []func() (runfmt.Finding, bool){
		func() (runfmt.Finding, bool) { return serialFinding(b, hot) },
		func() (runfmt.Finding, bool) { return starvedFinding(b) },
		func() (runfmt.Finding, bool) { return budgetFinding(b) },
	} {
		if f, ok := find(); ok {
			out = append(out, f)
		}
	}
	return out
}

// waiting is how many of the program's threads waited for a CPU on
// average; false when it was not measured.
func waiting(b *runfmt.Batch) (float64, bool) {
	if b.RunnableSource == "" || b.WallS <= 0 {
		return 0, false
	}
	return b.RunnableS / b.WallS, true
}

// serialFinding: the program kept about one core busy while it could use
// two or more, and was not kept from more by other work on the machine
// or by its budget.
func serialFinding(b *runfmt.Batch, hot []runfmt.HotFunc) (runfmt.Finding, bool) {
	c, cores := b.Cores, b.CoresMean
	w, measured := waiting(b)
	budgeted := c.BudgetCores > 0 && (c.BudgetCores < serialCoresMax+0.2 || runfmt.ThrottledNotable(b.ThrottledPct))
	if c.Usable < 2 || budgeted || b.WallS < serialMinWallS || cores < serialCoresMin || cores > serialCoresMax || w > starvedWaiting {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{Kind: runfmt.FindingSerial, Advice: runfmt.AdviceWorkerPool, Figures: runfmt.Figures{
		runfmt.FigShare: 1 - cores/float64(c.Usable), runfmt.FigCoresMean: cores, runfmt.FigUsableCores: float64(c.Usable),
		runfmt.FigWallTime: b.WallS, runfmt.FigCPUTime: b.CPUS, runfmt.FigHostCores: float64(c.Host), runfmt.FigCPUSetCores: float64(c.CPUSet),
	}}
	if c.GOMAXPROCS > 0 {
		f.Advice, f.Figures[runfmt.FigGOMAXPROCS] = runfmt.AdviceFanOut, float64(c.GOMAXPROCS)
	}
	if measured {
		f.Figures[runfmt.FigThreadsWaiting] = w
	}
	if c.BudgetCores > 0 && c.BudgetCores < float64(c.Usable) {
		f.Figures[runfmt.FigCPULimit] = c.BudgetCores // it caps what more cores can give
	}
	for _, h := range hot {
		if h.UserCode {
			f.Evidence.Functions = []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: h.Function, Callee: h.AttributedSample,
				Figures: runfmt.Figures{runfmt.FigShare: h.CumPct / 100}}}
			break
		}
	}
	return f, true
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

// starvedFinding: the program's threads waited for a CPU so much that the
// cores it used are the machine's doing.
func starvedFinding(b *runfmt.Batch) (runfmt.Finding, bool) {
	w, ok := waiting(b)
	if !ok || w <= starvedWaiting || b.WallS < serialMinWallS {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{Kind: runfmt.FindingCPUContention, Advice: runfmt.AdviceMeasureAlone, Figures: runfmt.Figures{
		runfmt.FigShare: b.RunnableS / (b.RunnableS + b.CPUS), runfmt.FigThreadsWaiting: w, runfmt.FigRunqueueTime: b.RunnableS,
		runfmt.FigWallTime: b.WallS, runfmt.FigCPUTime: b.CPUS, runfmt.FigCoresMean: b.CoresMean,
	}}
	f.Settings = f.Settings.With(runfmt.SettingSource, b.RunnableSource)
	return f, true
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

// budgetFinding: the CPU quota throttled the program.
func budgetFinding(b *runfmt.Batch) (runfmt.Finding, bool) {
	c := b.Cores
	if c.BudgetCores <= 0 || !runfmt.ThrottledNotable(b.ThrottledPct) {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{Kind: runfmt.FindingCPUBound, Advice: runfmt.AdviceLargerBudget, Figures: runfmt.Figures{
		runfmt.FigCPULimit: c.BudgetCores, runfmt.FigThrottled: b.ThrottledPct / 100, runfmt.FigThrottledTime: b.ThrottledS,
		runfmt.FigWallTime: b.WallS, runfmt.FigCoresMean: b.CoresMean,
	}}
	if b.WallS > 0 {
		f.Figures[runfmt.FigShare] = b.ThrottledS / b.WallS
	}
	if quota := max(1, int(c.BudgetCores+0.999)); c.GOMAXPROCS > quota {
		f.Figures[runfmt.FigGOMAXPROCS], f.Figures[runfmt.FigGOMAXPROCSMatch] = float64(c.GOMAXPROCS), float64(quota)
	}
	return f, true
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
