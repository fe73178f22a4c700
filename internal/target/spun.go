package target

import (
	"fmt"
	"slices"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// MarkSpun says, of a noisy run whose runtime spun share of its CPU while
// it waited for threads the crowded machine did not run (the spin-wait
// finding), that its CPU per request is inflated too: that CPU waited and
// would not have been spent on cores of the service's own. A clean run's
// spins are the service's own (its threads above its cores) and stay
// counted.
func MarkSpun(q *runfmt.Quality, share float64) {
	if share <= 0 {
		return
	}
	why := fmt.Sprintf("the runtime spun %s of the CPU waiting for threads without a CPU", units.FormatPct(100*share))
	if !invalidate(q, cpuValid, CPUPerRequestFigure+" ("+why+")") {
		return
	}
	if s, ok := strings.CutSuffix(q.Summary, noisyTail); ok {
		q.Summary = s + "; latency, throughput and CPU per request are inflated (" + why + ")"
	}
}

// MarkOverCounted says, of a noisy run whose CPU profile came from a
// sampler that counts a thread waiting for a CPU as working and stands for
// coverage× the CPU measured (runfmt.OverCounted), that its profile shares
// are not valid: the samples of the waits fall on whatever runs after them
// (a worker booting while the machine holds it off, a request long enough
// to be preempted), so the shares say where waits ended, not where the
// CPU went. Its summary line says so.
func MarkOverCounted(q *runfmt.Quality, coverage float64) {
	if !runfmt.OverCounted(coverage, 1) {
		return
	}
	why := fmt.Sprintf("the profiler counted threads waiting for a CPU as working: the profile stands for %s× the CPU measured", units.Sig(coverage))
	if invalidate(q, ProfileSharesValid, "profile shares ("+why+")") {
		q.Summary += "; the profile's shares do not hold (" + why + ")"
	}
}

// invalidate moves valid, one of a noisy run's valid figures, among the
// invalid ones as label; false when the run is not noisy or valid is not
// among its valid figures.
func invalidate(q *runfmt.Quality, valid, label string) bool {
	if !q.Noisy() {
		return false
	}
	i := slices.Index(q.Valid, valid)
	if i < 0 {
		return false
	}
	q.Valid = slices.Delete(slices.Clone(q.Valid), i, i+1) // Valid may be noisyValid itself
	q.Invalid = append(slices.Clone(q.Invalid), label)
	return true
}
