package stats

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
)

// Comparison is the outcome of comparing a base sample with a new one.
type Comparison struct {
	Base, New Summary
	// DeltaPct is the change of the median in percent: +10 means New's
	// median is 10% above Base's. It is 0 when Base's median is 0.
	DeltaPct float64
	// P is the Mann–Whitney U test's p-value (1 when the test cannot run).
	P float64
	// Significant is true when P <= Alpha and there are enough runs.
	Significant bool
	// TooFew is true when the sample sizes cannot give a significant
	// result at Alpha however far apart the values are.
	TooFew   bool
	Warnings []string
}

// Compare summarises base and new and tests whether they differ.
// It does not modify its arguments.
func Compare(base, new []float64) Comparison {
	c := Comparison{Base: Summarize(base), New: Summarize(new), P: 1}
	c.DeltaPct = deltaPct(c.Base.Median, c.New.Median)
	// A side's summary warns only that it is too small for an interval
	// (benchmath's "need >= 6 samples for confidence interval"): its
	// missing bounds say so, and a comparison's table says it once.
	if c.Base.Median == 0 && c.New.Median != 0 {
		c.Warnings = append(c.Warnings, "base median is 0: percent change undefined")
	}
	if c.TooFew = tooFew(len(base), len(new)); c.TooFew {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"need >= %d runs per side for a confident verdict (have %d and %d)",
			minRunsPerSide(), len(base), len(new)))
		return c
	}
	cmp := benchmath.AssumeNothing.Compare(newSample(base), newSample(new))
	c.P = cmp.P
	c.Significant = cmp.P <= Alpha
	c.Warnings = append(c.Warnings, errStrings(cmp.Warnings)...)
	return c
}

func deltaPct(base, new float64) float64 {
	if base == 0 || math.IsNaN(base) || math.IsNaN(new) {
		return 0
	}
	return (new/base - 1) * 100
}
