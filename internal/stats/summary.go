package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"perflab/internal/runfmt"
)

// Confidence is the confidence level of the intervals around medians.
const Confidence = 0.95

// Alpha is the significance level of comparisons: a difference is
// significant when its p-value is at most Alpha.
const Alpha = 0.05

// Summary is the median of a sample with its confidence interval.
// Lo and Hi are ±Inf when the sample is too small for an interval at
// the Confidence level (see Warnings).
type Summary struct {
	Median, Lo, Hi float64
	N              int
	Warnings       []string
}

// Summarize returns the median of values and its confidence interval.
// It does not modify values. An empty sample has a NaN median and a warning.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		nan := math.NaN()
		return Summary{Median: nan, Lo: nan, Hi: nan, Warnings: []string{"no values"}}
	}
	s := benchmath.AssumeNothing.Summary(newSample(values), Confidence)
	return Summary{
		Median:   s.Center,
		Lo:       s.Lo,
		Hi:       s.Hi,
		N:        len(values),
		Warnings: errStrings(s.Warnings),
	}
}

// Record is s as run.json and comparisons record it: the median with the
// bounds of its interval, those the sample is too small for left out
// (null).
func (s Summary) Record() runfmt.MetricSummary {
	out := runfmt.MetricSummary{Median: s.Median, N: s.N}
	if !math.IsInf(s.Lo, 0) && !math.IsNaN(s.Lo) {
		lo := s.Lo
		out.CILow = &lo
	}
	if !math.IsInf(s.Hi, 0) && !math.IsNaN(s.Hi) {
		hi := s.Hi
		out.CIHigh = &hi
	}
	return out
}

// newSample copies values because benchmath.NewSample sorts in place.
func newSample(values []float64) *benchmath.Sample {
	return benchmath.NewSample(slices.Clone(values), &benchmath.Thresholds{CompareAlpha: Alpha})
}

func errStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
