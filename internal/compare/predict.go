package compare

import (
	"slices"

	"perflab/internal/runfmt"
)

// fixedShare is the share of its base cost at most a culprit keeps in the
// new runs for its findings to count as fixed.
const fixedShare = 0.5

// predictions checks the base runs' predicted payoffs against the change.
// A culprit is fixed when its CPU per request fell to at most fixedShare
// of its base; in each base run, the payoffs of its findings that name a
// fixed culprit are summed by culprit (one run's findings share no CPU:
// exclusive_cpu_us), and each culprit's prediction is the median of its
// runs' sums, beside its own change. In all, the median of the runs'
// totals stands beside the change of the median CPU per request. Nil
// when the change fixed no finding's culprit, or the base predicted none.
func predictions(c *runfmt.Comparison, base []run) *runfmt.Predictions {
	cpu := map[string]runfmt.FunctionDelta{}
	for _, f := range c.Functions {
		if f.Profile == runfmt.ProfileCPU {
			cpu[f.Function] = f
		}
	}
	fixed := func(fn string) bool {
		d, ok := cpu[fn]
		return ok && d.Base > 0 && d.New <= fixedShare*d.Base
	}
	byCulprit := map[string][]float64{}
	kinds := map[string]runfmt.FindingKind{}
	var order []string
	var totals []float64
	for _, r := range base {
		sums := map[string]float64{}
		total := 0.0
		for _, f := range r.r.Findings {
			culprit, ok := f.Culprit()
			us := f.Payoff[runfmt.FigCPUPerRequest]
			if !ok || us <= 0 || !fixed(culprit.Function) {
				continue
			}
			if _, seen := kinds[culprit.Function]; !seen {
				kinds[culprit.Function] = f.Kind // its first finding's, as the base ranked it
				order = append(order, culprit.Function)
			}
			sums[culprit.Function] += us
			total += us
		}
		for fn, us := range sums {
			byCulprit[fn] = append(byCulprit[fn], us)
		}
		if total > 0 {
			totals = append(totals, total)
		}
	}
	if len(order) == 0 {
		return nil
	}
	p := &runfmt.Predictions{PredictedUs: median(totals)}
	for _, fn := range order {
		p.Findings = append(p.Findings, runfmt.Prediction{Kind: kinds[fn], Function: fn, PredictedUs: median(byCulprit[fn]), MeasuredUs: cpu[fn].Delta})
	}
	for _, m := range c.Metrics {
		if m.Name == runfmt.MetricCPU {
			p.MeasuredUs = 1000 * (m.New.Median - m.Base.Median)
		}
	}
	return p
}

// median of vs (not empty).
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
