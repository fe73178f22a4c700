package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// metricTitle is a metric's row title in the comparison tables.
func metricTitle(name runfmt.MetricName) string {
	if m, ok := runfmt.Metric(name); ok {
		return m.Title
	}
	return string(name)
}

// FunctionRows is how many gainers and losers of each profile kind the text
// and HTML comparisons show.
const FunctionRows = 5

// WriteCompareText writes a comparison the way benchstat does: one row per
// metric with each side's median ± the half-width of its 95% confidence
// interval, the change ("~" when not significant, "?" with too few runs)
// with its p-value and run counts; then the functions that gained and lost
// the most per request, the --fail-on verdict and the warnings.
func WriteCompareText(w io.Writer, c *runfmt.Comparison) error {
	p := &printer{w: w}
	p.f("%s: %s\n%s: %s\n\n", c.Base.Label, cmpGroup(c.Base), c.New.Label, cmpGroup(c.New))
	p.tabbed(func(tp *printer) {
		tp.row("", c.Base.Label, c.New.Label, "delta")
		for _, m := range c.Metrics {
			tp.row(metricTitle(m.Name), FormatSummary(m.Base, m.Unit), FormatSummary(m.New, m.Unit), FormatMetricDelta(m), cmpPN(m))
		}
	})
	if note := intervalNote(c); note != "" {
		p.f("(%s)\n", note)
	}
	p.cmpPredictions(c.Predictions)
	p.cmpFunctions(c.Functions, runfmt.ProfileCPU, "CPU per "+perUnit(c)+" by function", perUnit(c))
	p.cmpFunctions(c.Functions, runfmt.ProfileAllocs, "Allocations per "+perUnit(c)+" by function", perUnit(c))
	p.cmpThresholds(c.Thresholds)
	p.cmpWarnings(c.Warnings)
	return p.err
}

func cmpGroup(g runfmt.Group) string {
	s := "s"
	if len(g.Runs) == 1 {
		s = ""
	}
	ids := g.Runs
	if len(ids) > 3 {
		ids = append(append([]string(nil), ids[:2]...), "…", ids[len(ids)-1])
	}
	if g.Requests == 0 {
		return fmt.Sprintf("%d run%s (%s)", len(g.Runs), s, strings.Join(ids, ", ")) // a batch program's
	}
	return fmt.Sprintf("%d run%s (%s), %.0f requests each on average", len(g.Runs), s, strings.Join(ids, ", "), g.Requests)
}

// perUnit is what the comparison's costs are per: a request, or a run of
// a batch program.
func perUnit(c *runfmt.Comparison) string {
	if c.Batch {
		return "run"
	}
	return "request"
}

// FormatSummary formats a median with the half-width of its confidence
// interval in percent ("2.40 ms ± 1%"), the median alone when the group is
// too small for an interval (intervalNote says so under the table).
func FormatSummary(s runfmt.MetricSummary, unit string) string {
	return FormatMetric(s.Median, unit) + ciSuffix(s)
}

// ciSuffix is the half-width of a summary's confidence interval in
// percent of its median: " ± 1%"; "" without an interval, or around a
// median of 0.
func ciSuffix(s runfmt.MetricSummary) string {
	if s.CILow == nil || s.CIHigh == nil {
		return ""
	}
	half := math.Max(*s.CIHigh-s.Median, s.Median-*s.CILow)
	if s.Median == 0 {
		if half == 0 {
			return " ± 0%"
		}
		return ""
	}
	return fmt.Sprintf(" ± %.0f%%", 100*half/math.Abs(s.Median)) // whole percents, as benchstat prints them
}

// metricSummaries are c's metrics' summaries, both sides.
func metricSummaries(c *runfmt.Comparison) []runfmt.MetricSummary {
	var ss []runfmt.MetricSummary
	for _, m := range c.Metrics {
		ss = append(ss, m.Base, m.New)
	}
	return ss
}

// intervalNote says, under a comparison's table of medians, why some have
// no confidence interval: their group has fewer runs than one needs; ""
// when every median has one.
func intervalNote(c *runfmt.Comparison) string {
	fewest := -1
	for _, s := range metricSummaries(c) {
		if (s.CILow == nil || s.CIHigh == nil) && (fewest < 0 || s.N < fewest) {
			fewest = s.N
		}
	}
	switch {
	case fewest < 0:
		return ""
	case c.IntervalMinRuns <= 0: // a comparison that does not say
		return fmt.Sprintf("medians without ± have no 95%% interval: a side has %d runs", fewest)
	}
	return fmt.Sprintf("medians without ± have no 95%% interval: it needs %d runs a side, and a side has %d", c.IntervalMinRuns, fewest)
}

// FormatMetric formats a metric value in its unit.
func FormatMetric(v float64, unit string) string {
	switch unit {
	case runfmt.UnitBytes:
		return units.FormatBytes(v)
	case runfmt.UnitMs:
		return cmpSig3(v) + " ms"
	case runfmt.UnitPct:
		return fmt.Sprintf("%.1f%%", v) // one decimal in every row, as the table's other figures keep three digits
	case runfmt.UnitRPS:
		return cmpSig3(v)
	}
	return cmpSig3(v) + " " + unit
}

// cmpSig3 formats v with three significant digits (at least the integer part).
func cmpSig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100 || a == 0:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// FormatMetricDelta is benchstat's delta column: "+12.3%" when significant,
// followed by whether that is better or worse; "~" when the change is not
// significant; "?" when there are too few runs to tell.
func FormatMetricDelta(m runfmt.MetricComparison) string {
	if mark := unstated(m.TooFew, m.Significant); mark != "" {
		return mark
	}
	if m.Base.Median == 0 {
		return "from 0"
	}
	return FormatChange(m.DeltaPct) + " (" + direction(m.DeltaPct, m.Better) + ")"
}

// deltaClass is the class of a metric's row in the comparison page:
// "better" or "worse" for a change FormatMetricDelta states, else "same".
func deltaClass(m runfmt.MetricComparison) string {
	if unstated(m.TooFew, m.Significant) != "" || m.Base.Median == 0 {
		return "same"
	}
	return direction(m.DeltaPct, m.Better)
}

// ratioFrom is the growth at and above which a change reads as a ratio:
// "×25" says more than "+2400%".
const ratioFrom = 100

// FormatChange is a relative change: "+12.3%", "-74.2%", or from +100% on
// the ratio of new to base, "×3.8".
func FormatChange(pct float64) string {
	if pct >= ratioFrom {
		return "×" + cmpSig3(1+pct/100)
	}
	return pctChange(pct)
}

// unstated is the delta where no change can be stated: "too few runs"
// when no count of this size can be significant (benchstat's "?"), "~"
// when the change is not significant; "" when it can.
func unstated(tooFew, significant bool) string {
	switch {
	case tooFew:
		return "too few runs"
	case !significant:
		return "~"
	}
	return ""
}

// direction is whether a change of sign delta is "better" or "worse" for
// a figure whose better is higher (runfmt.BetterHigher) or lower.
func direction(delta float64, better string) string {
	if (delta > 0) == (better == runfmt.BetterHigher) {
		return "better"
	}
	return "worse"
}

// cmpPN is the "(p=0.008 n=5+5)" note of a row.
func cmpPN(m runfmt.MetricComparison) string { return pnNote(m.Base, m.New, m.PValue) }

// pnNote is a comparison's "(p=0.008 n=5+5)": its p-value, when it has
// one, and the runs of each side.
func pnNote(base, nw runfmt.MetricSummary, p *float64) string {
	n := fmt.Sprintf("n=%d+%d", base.N, nw.N)
	if p == nil {
		return "(" + n + ")"
	}
	return fmt.Sprintf("(p=%.3f %s)", *p, n)
}

// functions writes the biggest gainers and losers of one profile kind.
func (p *printer) cmpFunctions(rows []runfmt.FunctionDelta, kind runfmt.ProfileType, title, per string) {
	var gainers, losers []runfmt.FunctionDelta
	for _, r := range significantFirst(rows) {
		switch {
		case r.Profile != kind:
		case r.Delta < 0 && len(gainers) < FunctionRows:
			gainers = append(gainers, r)
		case r.Delta > 0 && len(losers) < FunctionRows:
			losers = append(losers, r)
		}
	}
	if len(gainers)+len(losers) == 0 {
		return
	}
	p.f("\n%s (user code counts the library code it calls):\n", title)
	p.tabbed(func(tp *printer) {
		for _, part := range []struct {
			name string
			rows []runfmt.FunctionDelta
		}{{"gainers (less per " + per + ")", gainers}, {"losers (more per " + per + ")", losers}} {
			if len(part.rows) == 0 {
				continue
			}
			tp.row("  "+part.name, "base", "new", "delta")
			for _, r := range part.rows {
				tp.row("  "+cmpFuncName(r), cmpCost(r.Base, r.Unit), cmpCost(r.New, r.Unit), cmpCostDelta(r), cmpFuncP(r))
			}
		}
	})
}

func cmpFuncName(r runfmt.FunctionDelta) string {
	name := units.Shorten(r.Function, 70) // long generic instantiations
	if r.UserCode {
		return name
	}
	return name + " (library)"
}

func cmpCost(v float64, unit string) string {
	if unit == runfmt.FunctionUnitUs {
		return units.FormatMicros(v)
	}
	return units.FormatBytes(v)
}

func cmpCostDelta(r runfmt.FunctionDelta) string {
	sign := "+"
	if r.Delta < 0 {
		sign = "-"
	}
	s := sign + cmpCost(math.Abs(r.Delta), r.Unit)
	switch {
	case r.DeltaPct == nil: // not "new": its code may be there, unsampled
		s += " (none in base)"
	case *r.DeltaPct == -100:
		s += " (none in new)"
	case *r.DeltaPct >= ratioFrom:
		s += " (" + FormatChange(*r.DeltaPct) + ")"
	default:
		s += fmt.Sprintf(" (%+.0f%%)", *r.DeltaPct)
	}
	return s
}

// significantFirst orders function rows with the significant ones first,
// each part in its order.
func significantFirst(rows []runfmt.FunctionDelta) []runfmt.FunctionDelta {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b runfmt.FunctionDelta) int {
		switch {
		case a.Significant == b.Significant:
			return 0
		case a.Significant:
			return -1
		}
		return 1
	})
	return out
}

func cmpFuncP(r runfmt.FunctionDelta) string {
	switch {
	case r.PValue == nil:
		return ""
	case r.Significant:
		return fmt.Sprintf("p=%.3f", *r.PValue)
	}
	return fmt.Sprintf("~ p=%.3f", *r.PValue)
}

// thresholds writes the --fail-on verdict, one row per rule.
func (p *printer) cmpThresholds(ths []runfmt.ThresholdCheck) {
	p.failOnTable(len(ths), []string{"  rule", "change", "result"}, func(i int) (bool, []string) {
		t := ths[i]
		change, result := pctChange(t.DeltaPct), "ok"
		switch {
		case !t.Measured:
			change, result = "not measured", "ok (not measured)"
		case !t.Significant:
			change += " (not significant)"
		}
		if t.Violated {
			result = "FAILED"
		}
		return t.Violated, []string{"  " + t.Rule, change, result}
	})
}

// failOnTable writes n --fail-on checks, when there are any: a heading,
// "all passed" or how many failed, then the table with the row check
// gives of each check i, under head.
func (p *printer) failOnTable(n int, head []string, check func(i int) (violated bool, row []string)) {
	if n == 0 {
		return
	}
	failed, rows := 0, make([][]string, n)
	for i := range n {
		violated, row := check(i)
		if violated {
			failed++
		}
		rows[i] = row
	}
	verdict := "all passed"
	if failed > 0 {
		verdict = fmt.Sprintf("%d of %d FAILED", failed, n)
	}
	p.f("\n--fail-on: %s\n", verdict)
	p.tabbed(func(tp *printer) {
		tp.row(head...)
		for _, row := range rows {
			tp.row(row...)
		}
	})
}

func (p *printer) cmpWarnings(ws []string) {
	if len(ws) == 0 {
		return
	}
	p.f("\nWarnings:\n")
	for _, w := range ws {
		p.f("  - %s\n", w)
	}
}

// tabbed writes the rows fill writes to tp (tab-separated cells, see
// row) in columns two spaces apart, through text/tabwriter.
func (p *printer) tabbed(fill func(tp *printer)) {
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	tp := &printer{w: tw}
	fill(tp)
	if tp.err == nil {
		tp.err = tw.Flush()
	}
	if p.err == nil {
		p.err = tp.err
	}
}

// row writes cells separated by tabs for a tabwriter, leaving out trailing
// empty cells so that no line ends in padding.
func (p *printer) row(cells ...string) {
	for len(cells) > 1 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	p.f("%s\n", strings.Join(cells, "\t"))
}
