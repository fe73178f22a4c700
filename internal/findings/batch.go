package findings

import (
	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

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
	budgeted := c.BudgetCores > 0 && (c.BudgetCores < serialCoresMax+0.2 || answer.ThrottledNotable(b.ThrottledPct))
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

// budgetFinding: the CPU quota throttled the program.
func budgetFinding(b *runfmt.Batch) (runfmt.Finding, bool) {
	c := b.Cores
	if c.BudgetCores <= 0 || !answer.ThrottledNotable(b.ThrottledPct) {
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
