package analysis

import (
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// smp is one sample of a hand-built profile: a stack written root first as
// "a;b;c" (the folded-stack convention) and its values.
type smp struct {
	stack string
	vals  []int64
}

// build makes a profile with sample types "type/unit" and the samples (see
// labtest.NewProfile).
func build(t testing.TB, types []string, samples ...smp) *profile.Profile {
	t.Helper()
	b := labtest.NewProfile(t, types...)
	for _, s := range samples {
		b.Add(s.stack, s.vals...)
	}
	return b.Profile()
}

// cpuProfile is labtest.CPUProfile.
func cpuProfile(t testing.TB) *profile.Profile { return labtest.CPUProfile(t) }

// The planted functions of labtest's real profiles.
var (
	pkgPath          = labtest.Planted
	realCPUProfile   = labtest.RealCPUProfile
	realAllocProfile = labtest.RealAllocProfile
	raceEnabled      = labtest.RaceEnabled
)

// Hot is HotFor by the default rule of user code.
func Hot(cpu *profile.Profile, requests int64, n int) []runfmt.HotFunc {
	return HotFor(cpu, requests, n, UserCode{})
}

// AllocTop is AllocTopFor by the default rule of user code.
func AllocTop(allocs *profile.Profile, requests int64, n int) []runfmt.AllocFunc {
	return AllocTopFor(allocs, requests, n, UserCode{})
}
