package report

import (
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// mdLedger writes where the time goes, from the run's ledger: a table of
// the measured parts, unexplained last, and the parts not measured.
func mdLedger(b *strings.Builder, r *runfmt.Run) {
	l := r.Ledger
	if l == nil || l.Time == nil {
		return
	}
	t := l.Time
	b.WriteString("**Where the time goes** (" + mdText(ledgerHeading(t)) + ")\n\n")
	lines, zero := ledgerLines(t)
	var rows [][]string
	for _, x := range lines {
		rows = append(rows, []string{mdText(string(x.Part)), mdText(units.FormatMs(x.Ms)), units.FormatPct(x.Pct), mdText(x.Detail), mdText(x.Sources)})
	}
	mdTable(b, "lrrll", []string{"part", "per request", "share", "where", "measured by"}, rows)
	var more []string
	if len(zero) > 0 {
		more = append(more, "measured at 0: "+strings.Join(zero, ", "))
	}
	if nm := notMeasured(t); len(nm) > 0 {
		more = append(more, "not measured: "+strings.Join(nm, "; "))
	}
	more = append(more, l.Notes...)
	for _, m := range more {
		b.WriteString(mdText(m) + "  \n")
	}
	if len(more) > 0 {
		b.WriteString("\n")
	}
}
