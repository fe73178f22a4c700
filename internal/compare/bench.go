package compare

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/store"
	"perflab/internal/units"
)

// Bench compares two benchmark runs (perflab bench) the way benchstat
// does: for every benchmark (same package and name) and unit both
// measured, each side's median with its 95% confidence interval and the
// Mann–Whitney U test of their timed runs; then the --fail-on rules and
// the verdict.
func Bench(base, new *runfmt.Run, rules []stats.BenchRule) *runfmt.BenchComparison {
	c := &runfmt.BenchComparison{Base: benchSide("base", base), New: benchSide("new", new), Rows: []runfmt.BenchDelta{}, Warnings: []string{}}
	for _, r := range []*runfmt.Run{base, new} {
		if r.Status == runfmt.StatusPartial {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s run %s is partial (%s): its finished runs are compared", benchSideOf(r, base), r.ID, r.PartialReason))
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
	c.Thresholds, c.Failed = checkBenchRules(c.Rows, rules)
	c.Verdict = benchVerdict(c)
	return c
}

// benchKey is a benchmark: its package and name.
type benchKey struct{ pkg, name string }

// HasBench says whether any of the groups holds a benchmark run.
func HasBench(groups ...[]store.Entry) bool {
	for _, es := range groups {
		for _, e := range es {
			if e.Run != nil && e.Run.Bench != nil {
				return true
			}
		}
	}
	return false
}

// BenchGroups compares two groups of benchmark runs, one run a side (each
// already holds its repeated timed runs), as Bench does; other groups are
// ErrIncomparable. perflab compare and the UI compare bench runs through
// it.
func BenchGroups(base, new []store.Entry, rules []stats.BenchRule) (*runfmt.BenchComparison, error) {
	if len(base) != 1 || len(new) != 1 || base[0].Run == nil || new[0].Run == nil || base[0].Run.Bench == nil || new[0].Run.Bench == nil {
		return nil, fmt.Errorf("%w: benchmark runs (perflab bench) compare one with one, and not with service runs: name one bench run a side", ErrIncomparable)
	}
	return Bench(base[0].Run, new[0].Run, rules), nil
}

func benchSideOf(r, base *runfmt.Run) string {
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
			if w = benchRowWarning(b.Name, m.Unit, w); w != "" && !containsString(*warn, w) {
				*warn = append(*warn, w)
			}
		}
		out = append(out, d)
	}
	return out
}

// benchRowWarning words a statistics warning about one benchmark's unit; the
// ones the table already says are dropped: equal samples (an exact count
// such as allocs/op, shown "± 0%") and a base of 0 (the change is shown in
// the unit instead of in percent).
func benchRowWarning(name, unit, w string) string {
	switch {
	case strings.Contains(w, "all samples are equal"), strings.Contains(w, "base median is 0"):
		return ""
	case strings.Contains(w, "need >= "):
		return w
	}
	return name + " " + unit + ": " + w
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameBenchUnit says whether a rule's unit names a row's: as written, or as
// benchstat spells it (sec/op for ns/op, B/s for MB/s).
func sameBenchUnit(rule, unit string) bool {
	if rule == unit {
		return true
	}
	_, a := benchunit.Tidy(1, rule)
	_, b := benchunit.Tidy(1, unit)
	return a == b
}

// checkBenchRules applies each rule to every row of its unit.
func checkBenchRules(rows []runfmt.BenchDelta, rules []stats.BenchRule) ([]runfmt.BenchCheck, []string) {
	var checks []runfmt.BenchCheck
	var failed []string
	for _, r := range rules {
		matched := false
		for _, d := range rows {
			if !sameBenchUnit(r.Unit, d.Unit) {
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

// benchVerdict settles the comparison: fail when a rule was violated, warn
// when a rule could not be checked (too few runs, a unit no benchmark
// measured), pass otherwise.
func benchVerdict(c *runfmt.BenchComparison) *runfmt.Verdict {
	v := &runfmt.Verdict{Status: runfmt.VerdictPass, Reasons: []string{}}
	for _, t := range c.Thresholds {
		if t.Violated {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: %s %s (significant)", t.Benchmark, t.Unit, formatBenchChange(t.Delta, t.DeltaPct)))
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

// formatBenchChange words a change: in percent, or in the unit from a base of 0.
func formatBenchChange(delta, pct float64) string {
	if pct == 0 && delta != 0 {
		sign := "+"
		if delta < 0 {
			sign = "-"
		}
		return sign + units.Sig(math.Abs(delta))
	}
	return fmt.Sprintf("%+.1f%%", pct)
}
