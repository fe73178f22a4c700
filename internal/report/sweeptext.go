package report

import (
	"io"
	"strconv"
	"text/tabwriter"

	"perflab/internal/runfmt"
)

// sweepMetrics are the columns of the sweep table: the cost per request
// against peak memory, throughput and tail latency, and the GC's share.
var sweepMetrics = []runfmt.MetricName{runfmt.MetricCPU, runfmt.MetricRSS, runfmt.MetricRPS, runfmt.MetricP99, runfmt.MetricGC}

// WriteSweepText writes a sweep side by side: one row per value of the
// swept variable with the median of each metric and its change against the
// first value ("~" not significant, "?" too few runs), then the warnings.
func WriteSweepText(w io.Writer, s *runfmt.Comparison) error {
	p := &printer{w: w}
	if len(s.Comparisons) == 0 {
		p.f("nothing to compare: the sweep of %s finished fewer than two values\n", s.Env)
		p.cmpWarnings(s.Warnings)
		return p.err
	}
	p.f("%s sweep: each value against %s=%s\n\n", s.Env, s.Env, s.Values[0])
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	tp := &printer{w: tw}
	head := []string{s.Env, "runs"}
	for _, m := range sweepMetrics {
		head = append(head, metricTitle(m), "")
	}
	tp.row(head...)
	for _, cells := range sweepRows(s) {
		tp.row(cells...)
	}
	if tp.err == nil {
		tp.err = tw.Flush()
	}
	if p.err == nil {
		p.err = tp.err
	}
	var ws []string
	ws = append(ws, s.Warnings...)
	for _, c := range s.Comparisons {
		ws = append(ws, c.Warnings...)
	}
	p.cmpWarnings(cmpUniq(ws))
	return p.err
}

// sweepComparison returns the comparison holding value i and whether the
// value is its base side.
func sweepComparison(s *runfmt.Comparison, i int) (*runfmt.Comparison, bool) {
	if i == 0 {
		return &s.Comparisons[0], true
	}
	if i-1 < len(s.Comparisons) {
		return &s.Comparisons[i-1], false
	}
	return nil, false
}

// sweepCell is a metric's median and, off the base value, its change.
func sweepCell(c *runfmt.Comparison, name runfmt.MetricName, base bool) []string {
	for _, m := range c.Metrics {
		if m.Name != name {
			continue
		}
		if base {
			return []string{FormatMetric(m.Base.Median, m.Unit), ""}
		}
		return []string{FormatMetric(m.New.Median, m.Unit), FormatMetricDelta(m)}
	}
	return []string{"-", ""}
}

func cmpUniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sweepRows are the sweep's table rows, one per value compared: the value,
// its runs, then each of sweepMetrics' cells.
func sweepRows(s *runfmt.Comparison) [][]string {
	var rows [][]string
	for i, v := range s.Values {
		c, base := sweepComparison(s, i)
		if c == nil {
			continue
		}
		n := len(c.New.Runs)
		if base {
			n = len(c.Base.Runs)
		}
		row := []string{v, strconv.Itoa(n)}
		for _, name := range sweepMetrics {
			row = append(row, sweepCell(c, name, base)...)
		}
		rows = append(rows, row)
	}
	return rows
}
