package compare

import (
	"fmt"

	"perflab/internal/runfmt"
)

// A batch program's runs (perflab run -- CMD without a URL) are compared
// on the metrics they have: wall time, CPU and peak RSS; their functions'
// costs are per run, as if each run were one request.

// batchMetricDefs are the metrics of batch runs, in the order printed.
var batchMetricDefs = []metricDef{
	{name: runfmt.MetricWall, value: func(r run) (float64, bool) { return r.r.Batch.WallS, r.r.Batch.WallS > 0 }},
	{name: runfmt.MetricCPUS, value: func(r run) (float64, bool) { return r.r.Batch.CPUS, r.r.Batch.CPUS > 0 }},
	{name: runfmt.MetricRSS, value: func(r run) (float64, bool) {
		return float64(r.r.Batch.RSSMaxBytes), r.r.Batch.RSSMaxBytes > 0
	}},
}

// BatchMetrics are the metrics batch programs' runs are compared on, the
// only ones a --fail-on rule of theirs can name.
func BatchMetrics() []runfmt.MetricName {
	out := make([]runfmt.MetricName, len(batchMetricDefs))
	for i, m := range batchMetricDefs {
		out[i] = m.name
	}
	return out
}

// measured says whether a run measured something to compare: requests
// of a load, or a batch program's run.
func measured(r *runfmt.Run) bool {
	if r.Batch != nil {
		return r.Batch.WallS > 0
	}
	return r.Load != nil && r.Load.Requests > 0
}

// requests is what a run's costs are divided by: the count its own pages
// divide by (the requests the service answered), or 1 for a batch
// program's run. Where the run gives no figure per request (other clients
// reached the service) its profile is still divided by the requests it
// answered, and by all it sent when it answered none.
func (r run) requests() int64 {
	if r.r.Batch != nil {
		return 1
	}
	if n := r.r.PerRequestCount(); n > 0 {
		return n
	}
	if n := r.r.Load.Answered(); n > 0 {
		return n
	}
	return r.r.Load.Requests
}

// batchRuns says whether the runs are batch programs' (usable keeps one
// kind or the other; checkKinds refuses a mix).
func batchRuns(runs []run) bool { return len(runs) > 0 && runs[0].r.Batch != nil }

// checkKinds refuses to compare batch programs' runs with services'.
func checkKinds(base, new []run) error {
	kinds := map[bool]int{}
	for _, r := range append(append([]run(nil), base...), new...) {
		kinds[r.r.Batch != nil]++
	}
	if kinds[true] > 0 && kinds[false] > 0 {
		return fmt.Errorf("comparing runs: %w: %d are a batch program's and %d a service's under load: their figures are not the same",
			ErrIncomparable, kinds[true], kinds[false])
	}
	return nil
}

// loadModel is a run's load model ("" for a batch program's).
func loadModel(r run) string {
	if r.r.Load == nil {
		return ""
	}
	return r.r.Load.Model
}
