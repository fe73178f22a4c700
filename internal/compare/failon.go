package compare

import "perflab/internal/stats"

// Threshold is a --fail-on rule of a comparison of runs, BenchRule one of
// benchmarks (see package stats).
type (
	Threshold = stats.Threshold
	BenchRule = stats.BenchRule
)

// ParseFailOn parses --fail-on's thresholds ("cpu_per_request>+5%,p99>+10%").
func ParseFailOn(s string) ([]Threshold, error) { return stats.ParseFailOn(s) }

// ParseBenchFailOn parses --fail-on's rules of benchmarks ("ns/op>+5%,allocs/op>0").
func ParseBenchFailOn(s string) ([]BenchRule, error) { return stats.ParseBenchFailOn(s) }
