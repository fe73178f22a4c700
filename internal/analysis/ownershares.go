package analysis

import (
	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// CPUOwnerShares splits a CPU profile's samples by owner, as fractions of
// its CPU that add up to 1: perflab's own measuring (stacks
// ownership.Classified.Measuring names: the profile and trace requests
// the service served for perflab), the runtime's spinning waits
// (spinners), the garbage collector (stacks through a function
// ownership.IsGoGC names), the user's code and what it calls (stacks with
// a frame of user code under uc), and the rest (the server, the runtime
// or interpreter). Nil for a profile without samples.
func CPUOwnerShares(cpu *profile.Profile, uc UserCode) map[runfmt.CPUOwner]float64 {
	if cpu == nil || len(cpu.SampleType) == 0 {
		return nil
	}
	vi := len(cpu.SampleType) - 1 // the CPU time (or the count, alone)
	cl := uc.model().ClassifyProfile(cpu)
	by := map[runfmt.CPUOwner]float64{}
	var total float64
	for _, s := range cpu.Sample {
		v := float64(s.Value[vi])
		if v <= 0 {
			continue
		}
		total += v
		by[sampleOwner(s, cl)] += v
	}
	if total == 0 {
		return nil
	}
	for o := range by {
		by[o] /= total
	}
	return by
}

// sampleOwner is whose work a sample is, its profile classified as cl.
func sampleOwner(s *profile.Sample, cl *ownership.Classified) runfmt.CPUOwner {
	switch {
	case cl.Measuring(s):
		return runfmt.OwnerMeasuring
	case sampleSpinner(s) != "":
		return runfmt.OwnerSpin
	}
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && ownership.IsGoGC(l.Function.Name) {
				return runfmt.OwnerGC
			}
		}
	}
	if cl.HasUser(s) {
		return runfmt.OwnerUser
	}
	return runfmt.OwnerRuntime
}

// sampleSpinner is the spinner whose wait a sample is, "" when none
// (spinnerOf).
func sampleSpinner(s *profile.Sample) string {
	var names []string
	for _, loc := range s.Location {
		for _, l := range loc.Line { // innermost first, as the stack
			if l.Function != nil {
				names = append(names, l.Function.Name)
			}
		}
	}
	return spinnerOf(func(i int) string { return names[i] }, len(names))
}
