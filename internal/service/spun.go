package service

import (
	"slices"

	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

// MarkSpun says, of a noisy run whose runtime spun share of its CPU while
// it waited for threads the crowded machine did not run (the spin-wait
// finding), that its CPU per request is inflated too: that CPU waited and
// would not have been spent on cores of the service's own. A clean run's
// spins are the service's own (its threads above its cores) and stay
// counted.
func MarkSpun(q *runfmt.Quality, share float64) {
	if share > 0 && distort(q, runfmt.RunCPUPerRequest) {
		q.SpunShare = share
	}
}

// MarkOverCounted says, of a noisy run whose CPU profile came from a
// sampler that counts a thread waiting for a CPU as working and stands for
// coverage× the CPU measured (answer.OverCounted), that its profile shares
// are not valid: the samples of the waits fell on whatever ran after them
// (a worker booting while the machine held it off, a request long enough
// to be preempted).
func MarkOverCounted(q *runfmt.Quality, coverage float64) {
	if answer.OverCounted(coverage, 1) && distort(q, runfmt.RunProfileShares) {
		q.ProfileOverMeasured = coverage
	}
}

// distort moves f, one of a noisy run's trusted figures, among the
// distorted ones; false when the run is not noisy or f is not among its
// trusted figures.
func distort(q *runfmt.Quality, f runfmt.RunFigure) bool {
	if !q.Noisy() {
		return false
	}
	i := slices.Index(q.Trusted, f)
	if i < 0 {
		return false
	}
	q.Trusted = slices.Delete(q.Trusted, i, i+1)
	q.Distorted = append(q.Distorted, f)
	return true
}
