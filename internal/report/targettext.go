package report

import (
	"fmt"
	"math"
	"strconv"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// TargetVerdictText is the service's CPU verdict in one line, from its
// window's figures: "CPU-bound at its budget: 0.98 of 1 core used,
// throttled in 72% of periods", "not CPU-bound: 0.31 of 2 host cores
// used (no CPU budget)"; "" for a summary of no window. A run before
// schema 5 kept its own words.
func TargetVerdictText(t *runfmt.TargetSummary) string {
	switch {
	case t.Verdict != "":
		return t.Verdict
	case t.CPUUnjudged:
		return fmt.Sprintf("not enough samples to judge CPU use (%d in the window)", t.Samples)
	case t.HostCores == 0:
		return ""
	}
	if limit := t.CPULimitCores; limit > 0 {
		used := fmt.Sprintf("%.2f of %s used, %s", t.CPUCoresMean, coresOf(limit), throttlingText(t.ThrottledPct))
		if t.CPUBound {
			return "CPU-bound at its budget: " + used
		}
		return "not CPU-bound: " + used
	}
	used := fmt.Sprintf("%.2f of %d host %s used (no CPU budget)", t.CPUCoresMean, t.HostCores, pluralWord(float64(t.HostCores), "core"))
	if t.CPUBound {
		return "CPU-bound on the whole host: " + used
	}
	return "not CPU-bound: " + used
}

func throttlingText(pct float64) string {
	if pct <= 0 {
		return "no throttling"
	}
	return "throttled in " + units.FormatPct(pct) + " of periods"
}

// coresOf is a budget of v cores: "1 core", "0.5 cores".
func coresOf(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) + " " + pluralWord(v, "core")
}

func pluralWord(v float64, w string) string {
	if v == 1 {
		return w
	}
	return w + "s"
}
