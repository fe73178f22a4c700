package report

import (
	"fmt"
	"io"
	"math"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// WriteBenchCompareText writes a comparison of two benchmark runs the way
// benchstat does: per benchmark and unit, each side's median ± the
// half-width of its 95% confidence interval, the change ("~" when not
// significant, "?" with too few runs) with its p-value and run counts;
// then the --fail-on checks, the warnings and the verdict.
func WriteBenchCompareText(w io.Writer, c *runfmt.BenchComparison) error {
	p := &printer{w: w}
	for _, s := range []runfmt.BenchSide{c.Base, c.New} {
		p.f("%s: %s\n", s.Label, benchSideText(s))
	}
	p.f("\n")
	p.tabbed(func(tp *printer) {
		tp.row("", "", c.Base.Label, c.New.Label, "delta")
		last := ""
		for _, d := range c.Rows {
			name := ""
			if d.Benchmark != last {
				name, last = d.Benchmark, d.Benchmark
			}
			tp.row(name, d.Unit, FormatBenchSummary(d.Base, d.Unit), FormatBenchSummary(d.New, d.Unit), FormatBenchDelta(d), benchPN(d))
		}
	})
	p.benchChecks(c.Thresholds)
	p.cmpWarnings(c.Warnings)
	if v := c.Verdict; v != nil && (len(c.Thresholds) > 0 || v.Status != runfmt.VerdictPass) {
		p.f("\nVerdict: %s\n", v.Status)
	}
	return p.err
}

func benchSideText(s runfmt.BenchSide) string {
	out := "run " + s.Run
	if r := s.Revision; r != nil {
		out = fmt.Sprintf("%s (%s)", r.Short(), r.Ref)
		if r.Subject != "" {
			out += " " + units.Shorten(r.Subject, 60)
		}
		out += ", run " + s.Run
	}
	return out
}

// FormatBenchDelta is benchstat's delta column for a benchmark unit:
// "+12.3% (worse)" when significant, the change in the unit when the base
// is 0 ("+2 (worse)"), "~" when not significant, "?" with too few runs.
// A significant change of equal medians (the rank test tells the runs
// apart, the medians did not move) is "0% (same median)": neither better
// nor worse.
func FormatBenchDelta(d runfmt.BenchDelta) string {
	if mark := unstated(d.TooFew, d.Significant); mark != "" {
		return mark
	}
	if d.Delta == 0 {
		return "0% (same median)"
	}
	s := pctChange(d.DeltaPct)
	if d.Base.Median == 0 {
		sign := "+"
		if d.Delta < 0 {
			sign = "-"
		}
		s = sign + FormatBenchValue(math.Abs(d.Delta), d.Unit)
	}
	if d.Better == "" {
		return s
	}
	return s + " (" + direction(d.Delta, d.Better) + ")"
}

// pctChange is a change in percent, "+12.3%", with as many decimals as a
// change under 0.1% needs for two significant digits ("+0.024%"), so that
// a change never reads as +0.0%.
func pctChange(pct float64) string {
	decimals := 1
	if a := math.Abs(pct); a > 0 && a < 0.1 {
		decimals = min(int(math.Ceil(-math.Log10(a)))+1, 20)
	}
	return fmt.Sprintf("%+.*f%%", decimals, pct)
}

// benchDeltaClass is the class of a benchmark's row in the comparison
// page: "better" or "worse" for a change FormatBenchDelta states with its
// direction, else "same".
func benchDeltaClass(d runfmt.BenchDelta) string {
	if unstated(d.TooFew, d.Significant) != "" || d.Better == "" || d.Delta == 0 {
		return "same"
	}
	return direction(d.Delta, d.Better)
}

func benchPN(d runfmt.BenchDelta) string { return pnNote(d.Base, d.New, d.PValue) }

// benchCheckChange is a check's change: in percent, or in the unit.
func benchCheckChange(t runfmt.BenchCheck) string {
	if !t.Measured {
		return "not measured"
	}
	s := pctChange(t.DeltaPct)
	if t.DeltaPct == 0 && t.Delta != 0 {
		sign := "+"
		if t.Delta < 0 {
			sign = "-"
		}
		s = sign + FormatBenchValue(math.Abs(t.Delta), t.Unit)
	}
	switch {
	case t.TooFew:
		s += " (too few runs)"
	case !t.Significant:
		s += " (not significant)"
	}
	return s
}

// benchChecks writes the --fail-on verdict, one row per rule and
// benchmark.
func (p *printer) benchChecks(ths []runfmt.BenchCheck) {
	p.failOnTable(len(ths), []string{"  rule", "benchmark", "change", "result"}, func(i int) (bool, []string) {
		t := ths[i]
		result := "ok"
		switch {
		case t.Violated:
			result = "FAILED"
		case !t.Measured:
			result = "ok (not measured)"
		}
		return t.Violated, []string{"  " + t.Rule, t.Benchmark, benchCheckChange(t), result}
	})
}
