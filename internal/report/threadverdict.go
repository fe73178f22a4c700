package report

import (
	"fmt"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// serviceVerdict is the service's CPU verdict from its CPU sampling's
// figures (TargetVerdictText: its cores against its budget or the host's), unless the answer found the one thread of its single-threaded
// workers busy (runfmt.LimitCPUThread): then that thread binds it,
// whatever cores the host has left, and the verdict says so rather than
// "not CPU-bound".
func serviceVerdict(r *runfmt.Run) string {
	t := r.Target
	if t == nil {
		return ""
	}
	l := r.Answer.First()
	if l.Kind != runfmt.LimitCPUThread {
		return TargetVerdictText(t)
	}
	of := "no CPU budget"
	switch {
	case t.CPULimitCores > 0:
		of = fmt.Sprintf("of a %g-core budget", t.CPULimitCores)
	case r.Quality != nil && r.Quality.HostCores > 0:
		of = fmt.Sprintf("of %d host cores, no CPU budget", r.Quality.HostCores)
	}
	return fmt.Sprintf("CPU-bound on one thread per worker: %s busy (an event loop, an interpreter lock), %s used (%s)",
		count(int(l.Figures[runfmt.FigCount]), "single-threaded worker", "single-threaded workers"), units.FormatCores(t.CPUCoresMean), of)
}
