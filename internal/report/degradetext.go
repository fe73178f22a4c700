package report

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The words of what a degraded run lacks (run.json's degradations), made
// from the run's own figures; a degradation of a run before schema 5 is
// its words alone (Note).

// DegradedText is the run's degradations in words, "; " between them.
func DegradedText(r *runfmt.Run) string {
	parts := make([]string, 0, len(r.Degradations))
	for _, d := range r.Degradations {
		parts = append(parts, DegradationText(r, d))
	}
	return strings.Join(parts, "; ")
}

// DegradationText is one degradation of r in words: "the CPU profile
// failed: pprof endpoint ... did not answer within 45s: timed out".
func DegradationText(r *runfmt.Run, d runfmt.Degradation) string {
	switch d.Why {
	case runfmt.DegradeFailed, runfmt.DegradeTimedOut:
		if d.Profile == runfmt.ProfileCPU {
			return "the CPU profile failed: " + d.Note
		}
	case runfmt.DegradeNoEndpoint:
		return "no net/http/pprof endpoint of the service found: no profiles (give --pprof URL)"
	case runfmt.DegradeNothingToSample:
		return "no net/http/pprof endpoint of the service found and no process to sample: no profiles (give --pprof URL or --pid)"
	case runfmt.DegradeNoSamples:
		if t := r.Target; t != nil {
			return fmt.Sprintf("the CPU profile has no samples while the service used %s of CPU", units.FormatMs(1000*t.CPUSeconds))
		}
	case runfmt.DegradeNotRepresentative:
		if r.Profiling != nil {
			return NotRepresentativeText(r.Profiling)
		}
	case runfmt.DegradeOverBudget:
		if t := r.Target; t != nil {
			return fmt.Sprintf("measurement error: the service used %.2f cores on average, above its %g-core budget; its CPU figures are not trustworthy", t.CPUCoresMean, t.CPULimitCores)
		}
	case runfmt.DegradeRequestsFailed:
		if l := r.Load; l != nil && l.Requests > 0 {
			return fmt.Sprintf("%s of the %d requests failed (%s): the figures are of a service that mostly did not answer as expected",
				units.FormatPct(100*float64(l.Errors)/float64(l.Requests)), l.Requests, MainErrorKind(l))
		}
	case runfmt.DegradeInterrupted:
		return "profiles interrupted (Ctrl-C)"
	}
	if d.Note != "" {
		return d.Note
	}
	return string(d.Profile) + " profile: " + string(d.Why)
}

// MainErrorKind is the load's most frequent kind of error, with its count
// and a sample: "40 timeout: Get ...: context deadline exceeded"; "" with
// no errors.
func MainErrorKind(r *runfmt.LoadResult) string {
	best, n := "", int64(-1)
	for k, v := range r.ErrorKinds {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("%d %s: %s", n, best, r.ErrorSamples[best])
}
