package runfmt

// Comparison is what `perflab compare`, `perflab ab` and `perflab sweep`
// print with --json, one shape for the three: two groups of runs, metric by
// metric (benchstat's method: medians, 95% confidence intervals,
// Mann–Whitney U), the functions whose cost per request changed most, the
// --fail-on checks and the verdict.
//
// A sweep of an environment variable has Env, Values and Comparisons (each
// value against the first, in order); its top level is then the comparison
// of the first value with the last (the whole range of the setting), with
// Thresholds, Failed and Warnings gathered from every step and the verdict
// of them all.
type Comparison struct {
	Base Group `json:"base"`
	New  Group `json:"new"`
	// Metrics has one row per metric both groups measured, in a fixed
	// order: rps, p50, p90, p99, cpu_per_request, allocs_per_request,
	// gc_pct, rss_max; for batch programs wall_time, cpu_time, rss_max.
	Metrics []MetricComparison `json:"metrics"`
	// Functions lists the biggest per-request changes, CPU rows first, then
	// allocation rows; within each, user code first, by |delta|.
	Functions []FunctionDelta `json:"functions"`
	// Warnings are the reasons to read the verdict with care (too few runs,
	// partial runs, different budgets, missing profiles).
	Warnings []string `json:"warnings"`
	// Thresholds is every --fail-on rule checked; Failed names the rules
	// that were violated (the command then exits 1).
	Thresholds []ThresholdCheck `json:"thresholds,omitempty"`
	Failed     []string         `json:"failed,omitempty"`
	// Verdict is the one-line answer: pass, fail (a --fail-on rule was
	// violated) or warn (the measurement cannot settle it).
	Verdict *Verdict `json:"verdict,omitempty"`
	// Batch says the runs are a batch program's (perflab run -- CMD
	// without a URL): no requests; the functions' costs are per run.
	Batch bool `json:"batch,omitempty"`
	// Predictions are the payoffs the base predicted for the findings
	// the change fixed, beside what was measured; nil when it fixed none.
	Predictions *Predictions `json:"predictions,omitempty"`
	// IntervalMinRuns is the fewest runs a side needs for its medians to
	// have a confidence interval; a median of fewer has none (CILow and
	// CIHigh nil).
	IntervalMinRuns int `json:"interval_min_runs,omitempty"`

	// Env and Values are the swept variable and its values (sweep only).
	Env    string   `json:"env,omitempty"`
	Values []string `json:"values,omitempty"`
	// Comparisons[i] compares Values[0] (base) with Values[i+1] (sweep only).
	Comparisons []Comparison `json:"comparisons,omitempty"`
}

// Group names the runs on one side of a comparison.
type Group struct {
	Label string   `json:"label"`
	Runs  []string `json:"runs"`
	// Requests is the mean number of requests of a run's measured window.
	Requests float64 `json:"requests_mean"`
	// NoisyRuns counts the runs measured on a noisy machine (their
	// quality's verdict).
	NoisyRuns int `json:"noisy_runs,omitempty"`
	// Revision is the git revision every run of the group measured (ab
	// --git), when they share one.
	Revision *Revision `json:"revision,omitempty"`
}

// Units of the metrics, which side of a change is better, and units of a
// function's cost.
const (
	UnitRPS          = "req/s"
	UnitMs           = "ms"
	UnitS            = "s"
	UnitBytes        = "B"
	UnitPct          = "%"
	BetterHigher     = "higher"
	BetterLower      = "lower"
	FunctionUnitUs   = "us"
	FunctionUnitByte = "B"
)

// MetricComparison is one metric in both groups.
type MetricComparison struct {
	Name MetricName `json:"name"`
	// Unit is req/s, ms, s, B or %.
	Unit string `json:"unit"`
	// Better is "higher" (rps) or "lower" (everything else).
	Better string        `json:"better"`
	Base   MetricSummary `json:"base"`
	New    MetricSummary `json:"new"`
	// DeltaPct is the change of the median in percent (new vs base).
	DeltaPct float64 `json:"delta_pct"`
	// PValue is the Mann–Whitney U p-value; null when there are too few
	// runs for a verdict.
	PValue      *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
	TooFew      bool     `json:"too_few,omitempty"`
}

// MetricSummary is a group's median of a metric with its 95% confidence
// interval; the bounds are null when the group is too small for one.
type MetricSummary struct {
	Median float64  `json:"median"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
	N      int      `json:"n"`
}

// FunctionDelta is one function's cost per request in both groups. For user
// code the cost is its own plus that of the library and runtime code it
// calls (as in perflab run's hot table); for other code it is the flat cost.
type FunctionDelta struct {
	Function string `json:"function"`
	// Profile is ProfileCPU (Unit "us": CPU microseconds per request) or
	// ProfileAllocs (Unit "B": bytes allocated per request).
	Profile  ProfileType `json:"profile"`
	Unit     string      `json:"unit"`
	UserCode bool        `json:"user_code"`
	Base     float64     `json:"base"`
	New      float64     `json:"new"`
	Delta    float64     `json:"delta"`
	// DeltaPct is null when the function is absent from the base.
	DeltaPct *float64 `json:"delta_pct"`
	// PValue compares the runs' per-request costs; null when there are too
	// few runs.
	PValue      *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
}

// ThresholdCheck is one --fail-on rule applied to its metric.
type ThresholdCheck struct {
	Rule        string     `json:"rule"`
	Metric      MetricName `json:"metric"`
	DeltaPct    float64    `json:"delta_pct"`
	Significant bool       `json:"significant"`
	// Measured is false when neither group measured the metric.
	Measured bool `json:"measured"`
	Violated bool `json:"violated"`
	// TooFew says there were too few runs to tell: the rule could not fail.
	TooFew bool `json:"too_few,omitempty"`
	// Step names the sweep's value the check belongs to (sweep only).
	Step string `json:"step,omitempty"`
}

// Prediction is a culprit of the base runs' findings that the change
// fixed (its CPU per request fell to at most half): the CPU per request
// the base predicted fixing its findings would save (Finding.Payoff),
// beside the change measured in it. Kind is its costliest finding's.
type Prediction struct {
	Kind     FindingKind `json:"kind"`
	Function string      `json:"function"`
	// PredictedUs is the median over the base runs of the CPU per
	// request its findings were predicted to save; MeasuredUs its CPU per
	// request, new less base (negative when it fell).
	PredictedUs float64 `json:"predicted_us"`
	MeasuredUs  float64 `json:"measured_us"`
}

// Predictions are a comparison's predictions checked: each finding the
// change fixed, and in all the CPU per request predicted beside the
// change of the cpu_per_request metric's median.
type Predictions struct {
	Findings []Prediction `json:"findings"`
	// PredictedUs is the median over the base runs of their predictions
	// summed; MeasuredUs the change of the median CPU per request, new
	// less base.
	PredictedUs float64 `json:"predicted_us"`
	MeasuredUs  float64 `json:"measured_us"`
}
