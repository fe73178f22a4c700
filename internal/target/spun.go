package target

import (
	"fmt"
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// MarkSpun says, of a noisy run whose runtime spun share of its CPU while
// it waited for threads the crowded machine did not run (the spin-wait
// finding), that its CPU per request is inflated too: that CPU waited and
// would not have been spent on cores of the service's own. A clean run's
// spins are the service's own (its threads above its cores) and stay
// counted.
func MarkSpun(q *runfmt.Quality, share float64) {
	if !q.Noisy() || share <= 0 {
		return
	}
	i := slices.Index(q.Valid, cpuValid)
	if i < 0 {
		return
	}
	q.Valid = slices.Delete(slices.Clone(q.Valid), i, i+1) // Valid may be noisyValid itself
	why := fmt.Sprintf("the runtime spun %.0f%% of the CPU waiting for threads without a CPU", 100*share)
	q.Invalid = append(slices.Clone(q.Invalid), "CPU per request ("+why+")")
	if s, ok := strings.CutSuffix(q.Summary, noisyTail); ok {
		q.Summary = s + "; latency, throughput and CPU per request are inflated (" + why + ")"
	}
}
