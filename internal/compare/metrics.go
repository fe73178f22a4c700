package compare

import (
	"fmt"
	"math"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// metricDef is how one metric is read off a run; its unit and better side
// are runfmt's (runfmt.Metric).
type metricDef struct {
	name runfmt.MetricName
	// value returns the run's value and whether it was measured.
	value func(r run) (float64, bool)
	// why, when set, says why a run has no value (empty: not said).
	why func(r run) string
}

// metricDefs lists the metrics in the order they are printed.
var metricDefs = []metricDef{
	{name: runfmt.MetricRPS, value: func(r run) (float64, bool) { return r.r.Load.RPS, true }},
	{name: runfmt.MetricP50, value: latency(func(l runfmt.Latency) float64 { return l.P50 })},
	{name: runfmt.MetricP90, value: latency(func(l runfmt.Latency) float64 { return l.P90 })},
	{name: runfmt.MetricP99, value: latency(func(l runfmt.Latency) float64 { return l.P99 })},
	{name: runfmt.MetricCPU, value: func(r run) (float64, bool) {
		if t := r.r.Target; t != nil && t.CPUMsPerRequest > 0 {
			return t.CPUMsPerRequest, true
		}
		return 0, false
	}, why: func(r run) string {
		if t := r.r.Target; t != nil {
			return t.CPUPerRequestNote
		}
		return ""
	}},
	{name: runfmt.MetricAllocs, value: allocsPerRequest},
	{name: runfmt.MetricGC, value: func(r run) (float64, bool) {
		if g := r.r.GC; g != nil {
			return g.CPUPct, true
		}
		return 0, false
	}},
	{name: runfmt.MetricRSS, value: func(r run) (float64, bool) {
		if t := r.r.Target; t != nil && t.RSSMaxBytes > 0 {
			return float64(t.RSSMaxBytes), true
		}
		return 0, false
	}},
}

func latency(pick func(runfmt.Latency) float64) func(r run) (float64, bool) {
	return func(r run) (float64, bool) {
		l := r.r.Load
		return pick(l.Latency), l.Requests > l.Errors
	}
}

// compareMetrics compares every metric measured by both groups.
func compareMetrics(base, new []run, warn *[]string) []runfmt.MetricComparison {
	out := []runfmt.MetricComparison{}
	defs := metricDefs
	if batchRuns(base) {
		defs = batchMetricDefs
	}
	for _, m := range defs {
		bv, nv := values(base, m), values(new, m)
		switch {
		case len(bv) == 0 && len(nv) == 0:
			continue
		case len(bv) == 0 || len(nv) == 0:
			missing, has := "base", "new"
			if len(nv) == 0 {
				missing, has = has, missing
			}
			*warn = append(*warn, fmt.Sprintf("%s: measured by the %s runs only, not by the %s runs: not compared", m.name, has, missing))
			continue
		}
		if len(bv) < len(base) || len(nv) < len(new) {
			*warn = append(*warn, fmt.Sprintf("%s: measured by %d of %d base and %d of %d new runs", m.name, len(bv), len(base), len(nv), len(new))+unmeasuredWhy(m, base, new))
		}
		out = append(out, metricRow(m, stats.Compare(bv, nv), warn))
	}
	return out
}

// unmeasuredWhy says, for the runs without m that say why, which they are
// and why: " (RUN: reason; ...)", or "" when none says.
func unmeasuredWhy(m metricDef, groups ...[]run) string {
	if m.why == nil {
		return ""
	}
	var why []string
	for _, runs := range groups {
		for _, r := range runs {
			if _, ok := m.value(r); ok {
				continue
			}
			if w := m.why(r); w != "" {
				why = append(why, r.id()+": "+w)
			}
		}
	}
	if len(why) == 0 {
		return ""
	}
	return " (" + strings.Join(why, "; ") + ")"
}

func values(runs []run, m metricDef) []float64 {
	var v []float64
	for _, r := range runs {
		if x, ok := m.value(r); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	return v
}

func metricRow(m metricDef, c stats.Comparison, warn *[]string) runfmt.MetricComparison {
	def, _ := runfmt.Metric(m.name)
	row := runfmt.MetricComparison{
		Name: m.name, Unit: def.Unit, Better: def.Better,
		Base: c.Base.Record(), New: c.New.Record(),
		DeltaPct: c.DeltaPct, Significant: c.Significant, TooFew: c.TooFew,
	}
	if !c.TooFew {
		p := c.P
		row.PValue = &p
	}
	for _, w := range c.Warnings {
		*warn = append(*warn, metricWarning(string(m.name), w))
	}
	return row
}

// metricWarning words a stats warning; the ones every metric shares (the
// number of runs) are not repeated per metric.
func metricWarning(name, w string) string {
	if strings.Contains(w, "need >= ") {
		return w
	}
	return name + ": " + w
}
