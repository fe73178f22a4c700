package runfmt

import "slices"

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

var coverageHintWords = []CoverageHint{HintEndpoint, HintFewSamples, HintProcesses}

// CoverageHints lists the hints.
func CoverageHints() []CoverageHint { return slices.Clone(coverageHintWords) }

// ParseCoverageHint returns the hint named s, or an error naming s and
// the hints.
func ParseCoverageHint(s string) (CoverageHint, error) {
	return parseWord("coverage hint", CoverageHints(), s)
}

// String is the hint's name.
func (h CoverageHint) String() string { return string(h) }

// UnmarshalText reads a hint's name, refusing one it does not know.
func (h *CoverageHint) UnmarshalText(b []byte) error { return unmarshalWord(h, b, ParseCoverageHint) }
