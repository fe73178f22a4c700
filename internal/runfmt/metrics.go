package runfmt

// MetricDef is one metric of a run as perflab compares, thresholds
// (--fail-on) and prints it: the vocabulary every package uses.
type MetricDef struct {
	Name   string // as in --fail-on and the comparison's JSON
	Title  string // as the comparison tables print it
	Unit   string // UnitRPS, UnitMs, UnitBytes or UnitPct
	Better string // BetterHigher or BetterLower
}

// Metrics are the metrics a comparison has, in the order it prints them.
var Metrics = []MetricDef{
	{MetricRPS, "requests/s", UnitRPS, BetterHigher},
	{MetricP50, "latency p50", UnitMs, BetterLower},
	{MetricP90, "latency p90", UnitMs, BetterLower},
	{MetricP99, "latency p99", UnitMs, BetterLower},
	{MetricCPU, "CPU per request", UnitMs, BetterLower},
	{MetricAllocs, "allocs per request", UnitBytes, BetterLower},
	{MetricGC, "GC share of CPU", UnitPct, BetterLower},
	{MetricRSS, "peak RSS", UnitBytes, BetterLower},
}

// MetricNames lists the metrics' names in order (what --fail-on accepts).
func MetricNames() []string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return names
}

// Metric returns the definition of the named metric.
func Metric(name string) (MetricDef, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return MetricDef{}, false
}

// Levels at which a figure deserves the reader's attention: the findings
// and the report's cards use the same ones.
const (
	// GCNotablePct is the GC share of the CPU (in percent) from which the
	// GC is a finding and its card is highlighted.
	GCNotablePct = 10.0
	// ThrottledNotablePct is the share of CPU periods throttled (percent)
	// from which the report highlights throttling and GOMAXPROCS above
	// the CPU budget is a finding.
	ThrottledNotablePct = 5.0
)
