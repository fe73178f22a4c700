// Package compare tells whether a change made a service better: it takes two
// groups of stored runs (a base and a new build, or two settings), checks
// that they are comparable, and compares them the way benchstat compares
// benchmarks — per metric, each side's median with its 95% confidence
// interval, the change in percent and the Mann–Whitney U p-value (through
// perflab/internal/stats) — and per function, the CPU and allocation cost
// per request from each group's merged profiles.
//
// # Usage
//
//	res, err := compare.Compare(baseEntries, newEntries, compare.Options{FailOn: ths})
//	report.WriteCompareText(os.Stdout, res.Comparison)
//	if len(res.Comparison.Failed) > 0 { /* exit 1 */ }
//
// # What is compared
//
// Metrics (the names --fail-on uses): rps, p50, p90, p99 (ms),
// cpu_per_request (ms), allocs_per_request (bytes), gc_pct and rss_max
// (bytes). A metric only one side measured is left out with a warning.
// perflab's own measuring, the profile and trace requests a Go service
// served for it (analysis.SplitTotal, ownership.IsGoMeasuring), is in no
// function row and not in allocs_per_request: two builds are compared by
// their own work.
//
// Runs whose loads, budgets or hosts differ are compared with a warning
// naming what differs; runs of different URL paths are refused unless
// Options.Force is set, because the numbers would describe different work.
// Partial runs are included with a warning; runs without a load result
// cannot be compared and are left out.
package compare
