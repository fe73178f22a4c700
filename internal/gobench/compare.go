package gobench

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/units"
)

// Compare compares two benchmark runs the way benchstat does: for every
// benchmark (same package and name) and unit both measured, each side's
// median with its 95% confidence interval and the Mann–Whitney U test of
// their timed runs; then the --fail-on rules and the verdict.
func Compare(base, new *runfmt.Run, rules []stats.BenchRule) *runfmt.BenchComparison {
	c := &runfmt.BenchComparison{Base: benchSide("base", base), New: benchSide("new", new), Rows: []runfmt.BenchDelta{}, Warnings: []string{}}
	for _, r := range []*runfmt.Run{base, new} {
		if r.Status == runfmt.StatusPartial {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s run %s is partial (%s): its finished runs are compared", sideOf(r, base), r.ID, r.PartialReason))
		}
	}
	newByKey := map[benchKey]*runfmt.Benchmark{}
	for i := range new.Bench.Benchmarks {
		b := &new.Bench.Benchmarks[i]
		newByKey[benchKey{b.Package, b.Name}] = b
	}
	seen := map[benchKey]bool{}
	for _, b := range base.Bench.Benchmarks {
		k := benchKey{b.Package, b.Name}
		seen[k] = true
		nb := newByKey[k]
		if nb == nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: measured by base only, not compared", b.Name))
			continue
		}
		c.Rows = append(c.Rows, compareBenchmark(b, *nb, &c.Warnings)...)
	}
	for _, b := range new.Bench.Benchmarks {
		if !seen[benchKey{b.Package, b.Name}] {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: measured by new only, not compared", b.Name))
		}
	}
	c.Thresholds, c.Failed = checkRules(c.Rows, rules)
	c.Verdict = verdict(c)
	return c
}

func sideOf(r, base *runfmt.Run) string {
	if r == base {
		return "base"
	}
	return "new"
}

func benchSide(label string, r *runfmt.Run) runfmt.BenchSide {
	return runfmt.BenchSide{Label: label, Run: r.ID, Revision: r.Revision}
}

// compareBenchmark compares the units two results of one benchmark share.
func compareBenchmark(b, nb runfmt.Benchmark, warn *[]string) []runfmt.BenchDelta {
	var out []runfmt.BenchDelta
	for _, m := range b.Metrics {
		nm, ok := nb.Metric(m.Unit)
		if !ok {
			continue
		}
		cmp := stats.Compare(m.Values, nm.Values)
		d := runfmt.BenchDelta{Benchmark: b.Name, Package: b.Package, Unit: m.Unit, Better: m.Better,
			Base: cmp.Base.Record(), New: cmp.New.Record(), DeltaPct: cmp.DeltaPct, Delta: cmp.New.Median - cmp.Base.Median,
			Significant: cmp.Significant, TooFew: cmp.TooFew}
		if !cmp.TooFew {
			p := cmp.P
			d.PValue = &p
		}
		for _, w := range cmp.Warnings {
			if w = rowWarning(b.Name, m.Unit, w); w != "" && !contains(*warn, w) {
				*warn = append(*warn, w)
			}
		}
		out = append(out, d)
	}
	return out
}

// rowWarning words a statistics warning about one benchmark's unit; the
// ones the table already says are dropped: equal samples (an exact count
// such as allocs/op, shown "± 0%") and a base of 0 (the change is shown in
// the unit instead of in percent).
func rowWarning(name, unit, w string) string {
	switch {
	case strings.Contains(w, "all samples are equal"), strings.Contains(w, "base median is 0"):
		return ""
	case strings.Contains(w, "need >= "):
		return w
	}
	return name + " " + unit + ": " + w
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameUnit says whether a rule's unit names a row's: as written, or as
// benchstat spells it (sec/op for ns/op, B/s for MB/s).
func sameUnit(rule, unit string) bool {
	if rule == unit {
		return true
	}
	_, a := benchunit.Tidy(1, rule)
	_, b := benchunit.Tidy(1, unit)
	return a == b
}

// checkRules applies each rule to every row of its unit.
func checkRules(rows []runfmt.BenchDelta, rules []stats.BenchRule) ([]runfmt.BenchCheck, []string) {
	var checks []runfmt.BenchCheck
	var failed []string
	for _, r := range rules {
		matched := false
		for _, d := range rows {
			if !sameUnit(r.Unit, d.Unit) {
				continue
			}
			matched = true
			c := runfmt.BenchCheck{Rule: r.String(), Benchmark: d.Benchmark, Unit: d.Unit, Delta: d.Delta, DeltaPct: d.DeltaPct,
				Significant: d.Significant, Measured: true, TooFew: d.TooFew}
			c.Violated = r.Violated(stats.Comparison{DeltaPct: d.DeltaPct, Significant: d.Significant, TooFew: d.TooFew,
				Base: stats.Summary{Median: d.Base.Median}, New: stats.Summary{Median: d.New.Median}})
			if c.Violated {
				failed = append(failed, fmt.Sprintf("%s (%s)", c.Rule, d.Benchmark))
			}
			checks = append(checks, c)
		}
		if !matched {
			checks = append(checks, runfmt.BenchCheck{Rule: r.String(), Unit: r.Unit})
		}
	}
	return checks, failed
}

// verdict settles the comparison: fail when a rule was violated, warn
// when a rule could not be checked (too few runs, a unit no benchmark
// measured), pass otherwise.
func verdict(c *runfmt.BenchComparison) *runfmt.Verdict {
	v := &runfmt.Verdict{Status: runfmt.VerdictPass, Reasons: []string{}}
	for _, t := range c.Thresholds {
		if t.Violated {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: %s %s (significant)", t.Benchmark, t.Unit, formatChange(t.Delta, t.DeltaPct)))
		}
	}
	if len(v.Reasons) > 0 {
		v.Status = runfmt.VerdictFail
	}
	var warns []string
	for _, t := range c.Thresholds {
		switch {
		case !t.Measured:
			warns = append(warns, fmt.Sprintf("%s: no benchmark measured %s", t.Rule, t.Unit))
		case t.TooFew:
			warns = append(warns, fmt.Sprintf("%s (%s): too few runs to tell", t.Rule, t.Benchmark))
		}
	}
	if len(warns) > 0 && v.Status == runfmt.VerdictPass {
		v.Status = runfmt.VerdictWarn
	}
	v.Reasons = append(v.Reasons, warns...)
	return v
}

// formatChange words a change: in percent, or in the unit from a base of 0.
func formatChange(delta, pct float64) string {
	if pct == 0 && delta != 0 {
		sign := "+"
		if delta < 0 {
			sign = "-"
		}
		return sign + units.Sig(math.Abs(delta))
	}
	return fmt.Sprintf("%+.1f%%", pct)
}
