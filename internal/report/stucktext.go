package report

import (
	"strings"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// stuckRows is how many groups of a snapshot a verdict lists: those in
// the service's code, then the others up to this many.
const stuckRows = 6

// stuck writes a verdict's block on a snapshot of a service whose
// requests stopped finishing: why and when it was taken, how each process
// was read, the groups (those in the service's code first) with the line
// each waits at, and what is missing.
func (p *printer) stuck(st *runfmt.Stuck) {
	if st == nil {
		return
	}
	unit := stuckUnit(st)
	p.f("\nStuck: %s; every thread's stack at %s into the window (%d %s, read in %s):\n",
		proseText(prose.StuckReason(st)), units.FormatMs(1000*st.AtS), st.Threads, prose.CountWord(unit, st.Threads), units.FormatMs(1000*st.Seconds))
	for _, pr := range st.Processes {
		unit := runfmt.UnitThread
		if pr.Source == runfmt.StackSourcePprof {
			unit = runfmt.UnitGoroutine
		}
		p.f("  process %d (%s): %s, %d %s, %s, %s", pr.PID, orUnknown(string(pr.Runtime)), pr.Source, pr.Threads, prose.CountWord(unit, pr.Threads),
			units.FormatBytes(float64(pr.Bytes)), units.FormatMs(1000*pr.Seconds))
		if pr.Error != "" {
			p.f(" — %s", pr.Error)
		}
		p.f("\n")
	}
	shown, rest := 0, 0
	for _, g := range st.Groups {
		if shown == stuckRows || shown > 0 && (g.Idle || !g.Located()) {
			rest += g.Count
			continue
		}
		shown++
		p.f("  %s\n", prose.StuckGroupText(g))
		if g.Text != "" {
			p.f("        %s\n", strings.TrimSpace(g.Text))
		}
	}
	if n := len(st.Groups) - shown; n > 0 {
		p.f("  ... %d more %s (%d %s) in run.json\n", n, prose.CountWord("group", n), rest, prose.CountWord(unit, rest))
	}
	for _, n := range st.Notes {
		p.f("  note: %s\n", n)
	}
}

// stuckUnit is what a snapshot counts: goroutines, threads, or both
// ("thread and goroutine" takes its plural as one word would).
func stuckUnit(st *runfmt.Stuck) string {
	unit := ""
	for _, g := range st.Groups {
		switch {
		case unit == "":
			unit = g.Unit
		case unit != g.Unit:
			return "thread and goroutine"
		}
	}
	if unit == "" {
		return runfmt.UnitThread
	}
	return unit
}

func orUnknown(s string) string {
	if s == "" {
		return "runtime unknown"
	}
	return s
}
