package decide

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// Objective is one term of a service-level objective: a latency percentile or
// the error rate, below a limit.
type Objective struct {
	Metric string  // p50, p90, p95, p99, p999, max, mean or errors
	Limit  float64 // milliseconds for latency, percent for errors
}

// SLO is a conjunction of objectives, e.g. "p99<100ms,errors<1%".
type SLO []Objective

var latencyMetrics = map[string]func(runfmt.Latency) float64{
	"p50": func(l runfmt.Latency) float64 { return l.P50 }, "p90": func(l runfmt.Latency) float64 { return l.P90 },
	"p95": func(l runfmt.Latency) float64 { return l.P95 }, "p99": func(l runfmt.Latency) float64 { return l.P99 },
	"p999": func(l runfmt.Latency) float64 { return l.P999 }, "max": func(l runfmt.Latency) float64 { return l.Max },
	"mean": func(l runfmt.Latency) float64 { return l.Mean },
}

// ParseSLO parses "p99<100ms,errors<1%".
func ParseSLO(s string) (SLO, error) {
	var out SLO
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		name, limit, ok := strings.Cut(term, "<")
		name = strings.ToLower(strings.TrimSpace(name))
		limit = strings.TrimSpace(limit)
		if !ok || name == "" || limit == "" {
			return nil, fmt.Errorf("--slo %q: term %q: want METRIC<LIMIT like p99<100ms or errors<1%%", s, term)
		}
		o := Objective{Metric: name}
		switch {
		case name == "errors":
			v, err := strconv.ParseFloat(strings.TrimSuffix(limit, "%"), 64)
			if err != nil || !strings.HasSuffix(limit, "%") || math.IsNaN(v) || v <= 0 || v > 100 {
				return nil, fmt.Errorf("--slo %q: errors limit %q: want a percentage like 1%%", s, limit)
			}
			o.Limit = v
		case latencyMetrics[name] != nil:
			d, err := time.ParseDuration(limit)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("--slo %q: %s limit %q: want a duration like 100ms", s, name, limit)
			}
			o.Limit = float64(d) / float64(time.Millisecond)
		default:
			return nil, fmt.Errorf("--slo %q: unknown metric %q (want p50, p90, p95, p99, p999, max, mean or errors)", s, name)
		}
		out = append(out, o)
	}
	return out, nil
}

// Check tells whether a load met every objective, and if not, which it missed.
func (slo SLO) Check(r *runfmt.LoadResult) (bool, string) {
	for _, c := range slo.Evaluate(r) {
		switch {
		case c.Pass:
		case c.Measured < c.Limit && r.Unfinished > 0:
			return false, fmt.Sprintf("%s: %d requests still in flight at the end, the oldest after %s (limit %s)", c.Metric, r.Unfinished, units.FormatMs(r.UnfinishedOldestMs), sloFigure(c.Limit, c.Unit))
		default:
			return false, fmt.Sprintf("%s %s >= %s", c.Metric, sloFigure(c.Measured, c.Unit), sloFigure(c.Limit, c.Unit))
		}
	}
	return true, ""
}

// sloFigure prints an objective's measured value or limit: a latency
// through units, an error rate in percent.
func sloFigure(v float64, unit string) string {
	if unit == "%" {
		return fmt.Sprintf("%.3g%%", v)
	}
	return units.FormatMs(v)
}

// Evaluate checks each objective against a load, like k6's thresholds: the
// objective, the measured value, and whether it was met. A load without
// requests meets no objective.
func (slo SLO) Evaluate(r *runfmt.LoadResult) []runfmt.SLOCheck {
	out := make([]runfmt.SLOCheck, 0, len(slo))
	for _, o := range slo {
		c := runfmt.SLOCheck{Objective: o.String(), Metric: o.Metric, Limit: o.Limit, Unit: "ms"}
		if o.Metric == "errors" {
			c.Unit = "%"
			if r.Requests > 0 {
				c.Measured = 100 * float64(r.Errors) / float64(r.Requests)
			}
		} else {
			c.Measured = latencyMetrics[o.Metric](r.Latency)
		}
		c.Pass = r.Requests > 0 && c.Measured < o.Limit && !unfinishedMiss(o, r)
		out = append(out, c)
	}
	return out
}

// tailPct is the share of requests (percent) a latency percentile leaves
// above it.
var tailPct = map[string]float64{"p50": 50, "p90": 10, "p95": 5, "p99": 1, "p999": 0.1, "max": 0}

// unfinishedMiss says whether the requests still in flight at the end of
// the load (in no percentile) miss a latency objective by themselves: the
// oldest is past the limit, and they are more than the percentile's tail.
func unfinishedMiss(o Objective, r *runfmt.LoadResult) bool {
	tail, ok := tailPct[o.Metric]
	if !ok || r.Unfinished == 0 || r.UnfinishedOldestMs < o.Limit {
		return false
	}
	return 100*float64(r.Unfinished) > tail*float64(r.Requests+r.Unfinished)
}

// String spells the objective in --slo's syntax ("p99<100ms"), as it is
// given and kept in run.json: a spelling to parse back, not a figure.
func (o Objective) String() string {
	if o.Metric == "errors" {
		return fmt.Sprintf("errors<%g%%", o.Limit)
	}
	return fmt.Sprintf("%s<%s", o.Metric, time.Duration(math.Round(o.Limit*float64(time.Millisecond))))
}

func (slo SLO) String() string {
	var parts []string
	for _, o := range slo {
		parts = append(parts, o.String())
	}
	return strings.Join(parts, ",")
}
