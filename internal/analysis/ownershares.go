package analysis

import (
	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// CPUOwnerShares splits a CPU profile's samples by owner, as fractions of
// its CPU that add up to 1: the runtime's spinning waits (spinners), the
// garbage collector (stacks through a function ownership.IsGoGC names),
// the user's code and what it calls (stacks with a frame of user code
// under uc), and the rest (the server, the runtime or interpreter). Nil
// for a profile without samples.
func CPUOwnerShares(cpu *profile.Profile, uc UserCode) map[runfmt.CPUOwner]float64 {
	if cpu == nil || len(cpu.SampleType) == 0 {
		return nil
	}
	vi := len(cpu.SampleType) - 1 // the CPU time (or the count, alone)
	by := map[runfmt.CPUOwner]float64{}
	var total float64
	for _, s := range cpu.Sample {
		v := float64(s.Value[vi])
		if v <= 0 {
			continue
		}
		total += v
		by[sampleOwner(s, uc)] += v
	}
	if total == 0 {
		return nil
	}
	for o := range by {
		by[o] /= total
	}
	return by
}

// sampleOwner is whose work a sample is.
func sampleOwner(s *profile.Sample, uc UserCode) runfmt.CPUOwner {
	if sampleSpinner(s) != "" {
		return runfmt.OwnerSpin
	}
	user := false
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function == nil {
				continue
			}
			if ownership.IsGoGC(l.Function.Name) {
				return runfmt.OwnerGC
			}
			user = user || uc.IsUser(l.Function.Name, l.Function.Filename)
		}
	}
	if user {
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
