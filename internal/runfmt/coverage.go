package runfmt

// Unrepresentative says that a CPU profile accounts for too little of the
// CPU measured to say where it went (run.json's
// profiling.unrepresentative): its functions are not the verdict. The
// CPU figures are the profiling block's (ProfileCPUSeconds,
// MeasuredCPUSeconds, UnsampledStartCPUSeconds).
type Unrepresentative struct {
	// Samples are the profile's samples.
	Samples int64 `json:"samples"`
	// Hint is what to check or try; HzSampled is the rate sampled at,
	// for HintFewSamples.
	Hint      CoverageHint `json:"hint,omitempty"`
	HzSampled int          `json:"hz_sampled,omitempty"`
}

// CoverageHint is what to try when a CPU profile misses most of the CPU
// measured.
type CoverageHint string

// The hints.
const (
	// HintEndpoint: the profile came from a pprof endpoint: is it the
	// service's own, and does the service run more processes?
	HintEndpoint CoverageHint = "endpoint"
	// HintFewSamples: few samples: raise the sampling rate or lengthen
	// the window.
	HintFewSamples CoverageHint = "few-samples"
	// HintProcesses: were all the service's processes sampled?
	HintProcesses CoverageHint = "processes"
)

// CoverageHints lists the hints.
var CoverageHints = newVocabulary("coverage hint", HintEndpoint, HintFewSamples, HintProcesses)

// UnmarshalText reads a hint's name, refusing one it does not know.
func (h *CoverageHint) UnmarshalText(b []byte) error { return CoverageHints.unmarshal(h, b) }
