package runfmt

// SLOCheck is one objective of --slo evaluated on a load: the objective as
// given, the measured value and whether it was met.
type SLOCheck struct {
	// Objective is the term as written, normalised: "p99<100ms", "errors<1%".
	Objective string `json:"objective"`
	// Metric is p50, p90, p95, p99, p999, max, mean or errors.
	Metric string `json:"metric"`
	// Limit and Measured are in Unit: "ms" for latency, "%" for errors.
	Limit    float64 `json:"limit"`
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	Pass     bool    `json:"pass"`
}

// SLOMissed says whether any objective was missed.
func SLOMissed(checks []SLOCheck) bool {
	for _, c := range checks {
		if !c.Pass {
			return true
		}
	}
	return false
}
