package prose

import "perflab/internal/runfmt"

// serialPhaseWords word the serial phases of a batch program
// (package findings' SerialPhaseFindings makes them, from its timeline and
// its CPU profile).
var serialPhaseWords = words{kinds: map[runfmt.FindingKind]wording{runfmt.FindingSerialPhase: {title: phaseTitle, detail: phaseDetail,
	advice: advices{runfmt.AdviceFanOut: phaseAdvice, runfmt.AdviceWorkerPool: phaseAdvice}}}}

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
