package compare

import (
	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// checkThresholds applies the --fail-on rules to the metric rows. A rule
// whose metric was not measured cannot fail; it is recorded as unmeasured.
func checkThresholds(c *runfmt.Comparison, ths []stats.Threshold) {
	for _, t := range ths {
		chk := runfmt.ThresholdCheck{Rule: t.String(), Metric: t.Metric}
		for _, m := range c.Metrics {
			if m.Name != t.Metric {
				continue
			}
			chk.Measured, chk.DeltaPct, chk.Significant, chk.TooFew = true, m.DeltaPct, m.Significant, m.TooFew
			chk.Violated = t.Violated(stats.Comparison{DeltaPct: m.DeltaPct, Significant: m.Significant, TooFew: m.TooFew,
				Base: stats.Summary{Median: m.Base.Median}, New: stats.Summary{Median: m.New.Median}})
		}
		c.Thresholds = append(c.Thresholds, chk)
		if chk.Violated {
			c.Failed = append(c.Failed, chk.Rule)
		}
	}
}
