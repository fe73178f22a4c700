package decide

import (
	"perflab/internal/findings"
	"perflab/internal/runfmt"
)

// stuckFindings is the finding of a run whose requests stopped finishing,
// first of all: where the biggest group of the service's threads waits.
func (d *decider) stuckFindings() []runfmt.Finding {
	st := d.run.Stuck
	if st == nil {
		return nil
	}
	f := findings.Stuck(st)
	if len(st.Groups) > 0 && st.Groups[0].Located() {
		f.Lines = []runfmt.SourceLine{d.stuckLine(st, st.Groups[0])}
	}
	return []runfmt.Finding{f}
}

// stuckContext is how many lines of source around the line a group waits
// at reports show.
const stuckContext = 3

// stuckLine is the line the biggest group waits at, with its source
// around it; its Pct is the share of the requests in flight that wait
// there.
func (d *decider) stuckLine(st *runfmt.Stuck, g runfmt.StuckGroup) runfmt.SourceLine {
	l := runfmt.SourceLine{File: g.File, Line: int64(g.Line), Text: g.Text}
	if st.InFlight > 0 {
		l.Pct = 100 * float64(min(int64(g.Count), st.InFlight)) / float64(st.InFlight)
	}
	src := d.sources().File(g.File)
	if ok, known := src.Matches(g.Function, l.Line); known && !ok {
		l.SourceChanged = true
	}
	for n := max(1, l.Line-stuckContext); n <= l.Line+stuckContext; n++ {
		text, ok := src.Line(n)
		if !ok {
			break
		}
		if len(l.Context) == 0 {
			l.ContextStart = n
		}
		l.Context = append(l.Context, text)
	}
	return l
}
