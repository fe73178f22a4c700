package answer

// Levels at which a figure of a run deserves attention that this
// package's rules apply and so do the packages that measure, find and
// show the figure (target, findings, lab, report): they compare with them
// through ThrottledNotable and OverCounted only, so that a figure at the
// level reads the same everywhere.
const (
	// ThrottledNotablePct is the share of CPU periods throttled (percent)
	// from which throttling matters: the CPU budget can then be the limit
	// and the service CPU-bound, GOMAXPROCS above the budget is a
	// finding, and the report highlights throttling.
	ThrottledNotablePct = 5.0
	// OverCountedRatio is how many times the CPU measured a CPU profile's
	// samples may stand for before its split (between functions, between
	// endpoints) is uncertain (DoubtOverCounted): a sampler that reads
	// stacks at every tick (py-spy, rbspy, V8) counts threads waiting for
	// a CPU as running, and those samples fall on the code that runs after
	// a wait and on the requests long enough to be preempted.
	OverCountedRatio = 1.5
)

// ThrottledNotable says a share of CPU periods throttled (in percent)
// deserves attention: from ThrottledNotablePct up.
func ThrottledNotable(pct float64) bool { return pct >= ThrottledNotablePct }

// OverCounted says a CPU profile standing for profiled of CPU, against
// measured, makes its split uncertain: from OverCountedRatio up.
func OverCounted(profiled, measured float64) bool {
	return measured > 0 && profiled >= OverCountedRatio*measured
}
