package findings

import (
	"slices"

	"perflab/internal/runfmt"
)

// Thresholds of a serial phase's finding.
const (
	// phaseLines is how many of its culprit's lines it quotes.
	phaseLines = 3
	// phaseCulpritMin: the user function it names does at least this
	// share of the phase's CPU.
	phaseCulpritMin = 0.2
	// phaseWaitShown: threads (or goroutines) waiting at least this many
	// at a time on average are said.
	phaseWaitShown = 0.05
)

// serialPhaseRule words the serial phases of a batch program
// (SerialPhaseFindings makes them, from its timeline and its CPU profile).
var serialPhaseRule = rule{words: map[runfmt.FindingKind]wording{runfmt.FindingSerialPhase: {title: phaseTitle, detail: phaseDetail,
	advice: advices{runfmt.AdviceFanOut: phaseAdvice, runfmt.AdviceWorkerPool: phaseAdvice}}}}

// PhaseCode is the code that ran in a span of a batch program's run:
// the hot functions of its CPU profile's samples in it (user code first,
// with their lines), or why there are none.
type PhaseCode func(from, to float64) (hot []runfmt.HotFunc, why string)

// SerialPhaseFindings puts a finding for each serial phase of a batch
// program's timeline first among fs, its findings, naming the code that
// ran in it. Phases that cover almost all of the run (phaseWholeRun) are
// the whole run's serial finding when fs has it, and are left out.
func SerialPhaseFindings(fs []runfmt.Finding, b *runfmt.Batch, tl Timeline, code PhaseCode) []runfmt.Finding {
	phases := SerialPhases(b, tl)
	if len(phases) == 0 {
		return fs
	}
	if slices.ContainsFunc(fs, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingSerial }) {
		var covered float64
		for _, ph := range phases {
			covered += ph.To - ph.From
		}
		if covered >= phaseWholeRun*b.WallS {
			return fs
		}
	}
	out := make([]runfmt.Finding, 0, len(phases)+len(fs))
	for _, ph := range phases {
		hot, why := code(ph.From, ph.To)
		out = append(out, phaseFinding(b, tl, ph, hot, why))
	}
	return append(out, fs...)
}

// phaseFinding is a serial phase's finding: its span, its share of the
// wall time, the cores it used of those it could use, the user function
// that did most of its work, and what spreading that work over the cores
// would save (Amdahl's law: the phase's time divided by the cores, the
// rest of the run as it is).
func phaseFinding(b *runfmt.Batch, tl Timeline, ph Phase, hot []runfmt.HotFunc, why string) runfmt.Finding {
	c, n, l := b.Cores, usableCores(b), ph.To-ph.From
	saved := l * (1 - 1/n)
	f := runfmt.Finding{Kind: runfmt.FindingSerialPhase, Advice: runfmt.AdviceWorkerPool, Figures: runfmt.Figures{
		runfmt.FigPhaseFrom: ph.From, runfmt.FigPhaseTo: ph.To, runfmt.FigWallTime: b.WallS, runfmt.FigShare: l / b.WallS,
		runfmt.FigCoresMean: ph.Cores, runfmt.FigUsableCores: n, runfmt.FigHostCores: float64(c.Host), runfmt.FigCPUSetCores: float64(c.CPUSet),
		runfmt.FigSavedTime: saved, runfmt.FigSavedShare: saved / b.WallS, runfmt.FigTimelineStep: 1e6 * tl.StepS,
	}}
	f.Settings = f.Settings.With(runfmt.SettingSource, tl.Source)
	if tl.Source != runfmt.SourcePerfSamples && ph.Waiting >= phaseWaitShown { // the others count the waits
		f.Figures[runfmt.FigThreadsWaiting] = ph.Waiting
	}
	if c.GOMAXPROCS > 0 {
		f.Advice, f.Figures[runfmt.FigGOMAXPROCS] = runfmt.AdviceFanOut, float64(c.GOMAXPROCS)
	}
	if c.BudgetCores > 0 && c.BudgetCores < float64(c.Usable) {
		f.Figures[runfmt.FigCPULimit] = c.BudgetCores // it is what caps the cores
	}
	for _, h := range hot {
		if h.UserCode && h.CumPct/100 >= phaseCulpritMin {
			f.Evidence.Functions = []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: h.Function, File: h.File,
				Callee: h.AttributedSample, Figures: runfmt.Figures{runfmt.FigShare: h.CumPct / 100}}}
			f.Lines = h.Lines[:min(len(h.Lines), phaseLines)]
			return f
		}
	}
	if why == "" && len(hot) > 0 {
		why = "no user function does as much as " + format(runfmt.MeasureShare, phaseCulpritMin) + " of its CPU in it"
	}
	if why != "" {
		f.Evidence.Notes = []string{why}
	}
	return f
}

// "serial phase: 63% of the wall time on 1 of 2 cores (0.01 s to 1.81 s)":
// the cores it kept busy or waited for.
func phaseTitle(v view, p *Prose) {
	p.say("serial phase: %v of the wall time on %v of %v cores (%v to %v)", v.fig(runfmt.FigShare), phaseDemand(v),
		v.fig(runfmt.FigUsableCores), v.fig(runfmt.FigPhaseFrom), v.fig(runfmt.FigPhaseTo))
}

// phaseDemand is the cores a phase kept busy and those its threads waited
// for.
func phaseDemand(v view) Span {
	return fig(runfmt.FigCoresMean, v.val(runfmt.FigCoresMean)+v.val(runfmt.FigThreadsWaiting))
}

func phaseDetail(v view, p *Prose) {
	p.say("From %v to %v of its %v, ", v.fig(runfmt.FigPhaseFrom), v.fig(runfmt.FigPhaseTo), v.fig(runfmt.FigWallTime))
	goSched := v.set(runfmt.SettingSource) == runfmt.SourceGoScheduler
	if goSched {
		p.say("its goroutines kept %v of its Ps busy on average", v.fig(runfmt.FigCoresMean))
	} else {
		p.say("the program's threads ran on %v cores on average", v.fig(runfmt.FigCoresMean))
	}
	if v.has(runfmt.FigThreadsWaiting) {
		p.say(" and waited for a CPU %v at a time, %v in all", v.fig(runfmt.FigThreadsWaiting), phaseDemand(v))
	}
	p.say(", of the %v cores it could use (host %v, cpuset %v", v.fig(runfmt.FigUsableCores), v.fig(runfmt.FigHostCores), v.fig(runfmt.FigCPUSetCores))
	if v.has(runfmt.FigGOMAXPROCS) {
		p.say(", GOMAXPROCS %v", v.fig(runfmt.FigGOMAXPROCS))
	}
	if v.has(runfmt.FigCPULimit) {
		p.say(", budget %v", code("--cpus "+format(runfmt.MeasureCores, v.val(runfmt.FigCPULimit))))
	}
	p.words("): it had no work for the others.")
	if e, ok := v.f.Culprit(); ok {
		p.say(" %v does %v of its CPU in it", code(e.Function), efig(e, runfmt.FigShare))
		if e.Callee != "" {
			p.say(" (most in %v under it)", code(e.Callee))
		}
		p.words(".")
	} else if notes := v.f.Evidence.Notes; len(notes) > 0 {
		p.say(" The code that ran in it is not known: %v.", word(notes[0]))
	}
	switch v.set(runfmt.SettingSource) {
	case runfmt.SourceGoScheduler:
		p.say(" (Its Ps were read from the Go scheduler's trace every %v: an idle P had no goroutine to run, whatever else ran on its core.)",
			v.fig(runfmt.FigTimelineStep))
	case runfmt.SourcePerfSamples:
		p.say(" (Its CPU was read from its profile's samples in steps of %v; its waits for a CPU were not measured, "+
			"so a phase that other work held to one core would read as serial too.)", v.fig(runfmt.FigTimelineStep))
	default:
		p.say(" (Its CPU and its threads' waits for a CPU were read every %v.)", v.fig(runfmt.FigTimelineStep))
	}
}

// phaseAdvice says what spreading the phase's work over the cores would
// save, and how (in Go, over GOMAXPROCS goroutines).
func phaseAdvice(v view, p *Prose) {
	p.say("Spread over the %v cores, the phase would save up to %v, %v of the wall time (Amdahl's law: its work divided evenly, the rest as it is): ",
		v.fig(runfmt.FigUsableCores), v.fig(runfmt.FigSavedTime), v.fig(runfmt.FigSavedShare))
	if v.f.Advice == runfmt.AdviceFanOut {
		p.say("fan its independent work out to %v goroutines", code("runtime.GOMAXPROCS(0)"))
	} else {
		p.words("hand its independent work to a pool of workers, one per core")
	}
	p.words(", or overlap it with the work that does not depend on it.")
}
