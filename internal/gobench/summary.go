package gobench

import (
	"math"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// summary records a median with its interval; bounds the sample is too
// small for are left out (null), as comparisons record them.
func summary(s stats.Summary) runfmt.MetricSummary {
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
