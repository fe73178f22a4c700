package compare

import (
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// TestThresholdFromZero: a --fail-on rule on a metric whose base median
// is 0 fails on a significant rise, though its percent change is not
// defined.
func TestThresholdFromZero(t *testing.T) {
	c := &runfmt.Comparison{Metrics: []runfmt.MetricComparison{{Name: runfmt.MetricGC,
		Base: runfmt.MetricSummary{Median: 0, N: 5}, New: runfmt.MetricSummary{Median: 9.4, N: 5}, Significant: true}}}
	ths, err := stats.ParseFailOn("gc_pct>+50%")
	if err != nil {
		t.Fatal(err)
	}
	checkThresholds(c, ths)
	if len(c.Failed) != 1 {
		t.Errorf("checks %+v; want gc_pct>+50%% violated by a GC share from 0%% to 9.4%%", c.Thresholds)
	}
}
