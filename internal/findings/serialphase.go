package findings

import (
	"slices"

	"perflab/internal/runfmt"
	"perflab/internal/units"
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
		why = "no user function does as much as " + units.FormatShare(phaseCulpritMin) + " of its CPU in it"
	}
	if why != "" {
		f.Evidence.Notes = []string{why}
	}
	return f
}
