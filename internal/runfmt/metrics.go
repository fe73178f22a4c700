package runfmt

// MetricName is a metric of a run as perflab compares, thresholds
// (--fail-on) and prints it: its name in --fail-on, a comparison's JSON and
// its threshold checks. Metrics has each one's title, unit and better side.
type MetricName string

// The metrics, in the order a comparison prints them.
const (
	MetricRPS    MetricName = "rps"                // requests per second
	MetricP50    MetricName = "p50"                // median latency, ms
	MetricP90    MetricName = "p90"                // 90th percentile of latency, ms
	MetricP99    MetricName = "p99"                // 99th percentile of latency, ms
	MetricCPU    MetricName = "cpu_per_request"    // the service's CPU per request, ms
	MetricAllocs MetricName = "allocs_per_request" // bytes allocated per request
	MetricGC     MetricName = "gc_pct"             // the garbage collector's share of the CPU
	MetricRSS    MetricName = "rss_max"            // peak resident memory, bytes
	// A batch program's (perflab run -- CMD without a URL).
	MetricWall MetricName = "wall_time" // from start to exit, s
	MetricCPUS MetricName = "cpu_time"  // CPU time, user and system, s
)

// MetricDef is one metric with how it is shown and judged.
type MetricDef struct {
	Name   MetricName
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
	{MetricWall, "wall time", UnitS, BetterLower},
	{MetricCPUS, "CPU time", UnitS, BetterLower},
}

// MetricNames lists the metrics' names in order (what --fail-on accepts).
var MetricNames = newVocabulary("metric", func() []MetricName {
	names := make([]MetricName, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return names
}()...)

// UnmarshalText reads a metric's name, refusing one it does not know.
func (m *MetricName) UnmarshalText(b []byte) error { return MetricNames.unmarshal(m, b) }

// Metric returns the definition of the named metric.
func Metric(name MetricName) (MetricDef, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return MetricDef{}, false
}
