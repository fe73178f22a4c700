package compare

import (
	"slices"

	"perflab/internal/runfmt"
)

// fixedShare is the share of its base cost at most a culprit keeps in the
// new runs for its finding to count as fixed.
const fixedShare = 0.5

// predictions checks the base runs' predicted payoffs against the change:
// each finding whose culprit's CPU per request fell to at most fixedShare
// of its base, with the median payoff the base runs predicted for it, and
// in all against the change of the median CPU per request. Nil when the
// change fixed no finding, or the base runs predicted none.
func predictions(c *runfmt.Comparison, base []run) *runfmt.Predictions {
	cpu := map[string]runfmt.FunctionDelta{}
	for _, f := range c.Functions {
		if f.Profile == runfmt.ProfileCPU {
			cpu[f.Function] = f
		}
	}
	type key struct {
		kind runfmt.FindingKind
		fn   string
	}
	predicted := map[key][]float64{}
	var order []key
	for _, r := range base {
		for _, f := range r.r.Findings {
			culprit, ok := f.Culprit()
			us := f.Payoff[runfmt.FigCPUPerRequest]
			d, seen := cpu[culprit.Function]
			if !ok || us <= 0 || !seen || d.Base <= 0 || d.New > fixedShare*d.Base {
				continue
			}
			k := key{f.Kind, culprit.Function}
			if _, ok := predicted[k]; !ok {
				order = append(order, k)
			}
			predicted[k] = append(predicted[k], us)
		}
	}
	if len(order) == 0 {
		return nil
	}
	p := &runfmt.Predictions{}
	for _, k := range order {
		us := median(predicted[k])
		p.Findings = append(p.Findings, runfmt.Prediction{Kind: k.kind, Function: k.fn, PredictedUs: us, MeasuredUs: cpu[k.fn].Delta})
		p.PredictedUs += us
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
