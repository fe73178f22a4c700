package runfmt

// Degradation is one thing a degraded run lacks (run.json's
// degradations): a profile it needed that failed or could not be
// trusted, or a load that mostly failed. Its figures are the run's own
// (its target, load and profiling blocks); Note quotes what perflab
// cannot type (an error's text), and is the whole of a degradation read
// from a run before schema 5 (its degraded_reasons).
type Degradation struct {
	// Profile is the profile that is missing or untrustworthy; empty when
	// the degradation is not one profile's.
	Profile ProfileType `json:"profile,omitempty"`
	// Why is what went wrong.
	Why  DegradeKind `json:"why,omitempty"`
	Note string      `json:"note,omitempty"`
}

// DegradeKind is why a run is degraded: run.json's degradations[].why.
type DegradeKind string

// The kinds.
const (
	// DegradeFailed: the profile could not be taken (refused, of the
	// wrong type, a profiler that failed); Note quotes the error.
	DegradeFailed DegradeKind = "failed"
	// DegradeTimedOut: the pprof endpoint did not answer within its
	// time; Note quotes the error.
	DegradeTimedOut DegradeKind = "timed-out"
	// DegradeNoEndpoint: no net/http/pprof endpoint of the service was
	// found for the profiler asked for (--profiler pprof).
	DegradeNoEndpoint DegradeKind = "no-endpoint"
	// DegradeNothingToSample: no endpoint and no process to sample
	// (perflab knows only the service's URL).
	DegradeNothingToSample DegradeKind = "nothing-to-sample"
	// DegradeNoSamples: the CPU profile has no samples while the service
	// used CPU (TargetSummary.CPUSeconds).
	DegradeNoSamples DegradeKind = "no-samples"
	// DegradeNotRepresentative: the CPU profile accounts for too little of
	// the CPU measured (Profiling.Unrepresentative).
	DegradeNotRepresentative DegradeKind = "not-representative"
	// DegradeOverBudget: the service's mean CPU was above its budget, a
	// measurement error (TargetSummary.CPUCoresMean, CPULimitCores).
	DegradeOverBudget DegradeKind = "over-budget"
	// DegradeRequestsFailed: most of the load's requests failed
	// (LoadResult.Errors, ErrorKinds).
	DegradeRequestsFailed DegradeKind = "requests-failed"
	// DegradeInterrupted: Ctrl-C ended the profiles before all were
	// taken (perflab bench).
	DegradeInterrupted DegradeKind = "interrupted"
)

// DegradeKinds lists the kinds.
var DegradeKinds = newVocabulary("degradation",
	DegradeFailed, DegradeTimedOut, DegradeNoEndpoint, DegradeNothingToSample, DegradeNoSamples,
	DegradeNotRepresentative, DegradeOverBudget, DegradeRequestsFailed, DegradeInterrupted,
)

// UnmarshalText reads a kind's name, refusing one it does not know.
func (k *DegradeKind) UnmarshalText(b []byte) error { return DegradeKinds.unmarshal(k, b) }
