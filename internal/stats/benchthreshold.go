package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BenchRule is one `perflab bench --fail-on` rule: a Threshold on a
// benchmark unit ("ns/op>+5%"), or with Abs a limit on the change in the
// unit itself rather than in percent ("allocs/op>0").
type BenchRule struct {
	// Unit is the benchmark unit as go test prints it (ns/op, allocs/op).
	Unit string
	// Threshold holds the comparison and its limit; its Metric is unused
	// (a unit is not one of a run's metrics).
	Threshold
	Abs bool
}

// String formats r in the syntax ParseBenchFailOn reads.
func (r BenchRule) String() string {
	sign, pct := "", "%"
	if !math.Signbit(r.Pct) {
		sign = "+"
	}
	if r.Abs {
		pct = ""
	}
	return r.Unit + string(r.Op) + sign + strconv.FormatFloat(r.Pct, 'f', -1, 64) + pct
}

// Violated reports whether c is a significant change beyond r: with Abs,
// the change of the median in the unit is held against the limit.
func (r BenchRule) Violated(c Comparison) bool {
	if !r.Abs {
		return r.Threshold.Violated(c)
	}
	d := c.New.Median - c.Base.Median
	return r.Threshold.Violated(Comparison{DeltaPct: d, Significant: c.Significant, TooFew: c.TooFew})
}

const benchFailOnForm = `want UNIT>LIMIT or UNIT<LIMIT, e.g. "ns/op>+5%" (a change in percent) or "allocs/op>0" (a change in the unit)`

// ParseBenchFailOn parses `perflab bench --fail-on`: comma-separated rules
// UNIT>LIMIT or UNIT<LIMIT, where UNIT is a unit go test prints (ns/op,
// B/op, allocs/op, MB/s, or a benchmark's own from b.ReportMetric; sec/op
// and B/s, benchstat's names, are read as ns/op and MB/s would be) and
// LIMIT is a percentage ("ns/op>+5%") or, without '%', a change in the unit
// itself ("allocs/op>0": any significant increase, even from 0, where a
// percentage is undefined). Each rule applies to every benchmark that
// measured its unit. An empty string gives no rules.
func ParseBenchFailOn(s string) ([]BenchRule, error) {
	return parseRules(s, benchFailOnForm, parseBenchRule)
}

func parseBenchRule(it ruleItem) (BenchRule, error) {
	t := BenchRule{Unit: it.name, Threshold: Threshold{Op: it.op}}
	if t.Unit == "" || strings.ContainsFunc(t.Unit, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return BenchRule{}, fmt.Errorf("item %q: the unit must be one word as go test prints it (ns/op, B/op, allocs/op, MB/s, ...)", it.text)
	}
	var err error
	if strings.HasSuffix(it.limit, "%") {
		t.Pct, err = parsePct(it.limit)
	} else {
		t.Pct, err = parseLimit(it.limit)
		t.Abs = true
	}
	if err != nil {
		return BenchRule{}, fmt.Errorf("item %q: %w", it.text, err)
	}
	return t, nil
}

// parseLimit reads a plain decimal change: ParseFloat alone would also
// take "inf", "0x1p3" and "1_0".
func parseLimit(s string) (float64, error) {
	if s == "" || strings.Trim(s, "+-.0123456789eE") != "" {
		return 0, fmt.Errorf("limit %q is not a number: %s", s, benchFailOnForm)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("limit %q is not a number: %s", s, benchFailOnForm)
	}
	return v, nil
}
