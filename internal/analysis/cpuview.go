package analysis

import (
	"slices"

	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/stacks"
)

// CPUView is a CPU profile's costs with attribution, and what a request
// costs in CPU: the view of a CPU profile that the findings and the
// endpoints read, where a share of the profile is a share of each
// request's CPU.
type CPUView struct {
	// Costs are the profile's (nil without a CPU profile, or one without
	// samples of a known type).
	Costs *Costs
	// UsPerRequest is the CPU per request in µs: measured (the service's
	// cgroup or /proc) when known, else the profile's.
	UsPerRequest float64
	Requests     int64
	UserCode     UserCode
	// sampled is the fraction of UsPerRequest the profile stands for: 1
	// but for the start-up of workers started before any profiler
	// attached, measured and in no sample.
	sampled float64
}

// NewCPUView reads cpu (nil: no profile) for requests requests;
// measuredMs is the CPU per request measured, in ms (0: unknown), and
// unsampledMs the part of it no profiler could sample (the start-up of
// workers started during the window, runfmt.CPUAccount's).
func NewCPUView(cpu *profile.Profile, requests int64, uc UserCode, measuredMs, unsampledMs float64) *CPUView {
	v := &CPUView{Requests: requests, UserCode: uc, sampled: 1}
	if measuredMs > 0 && unsampledMs > 0 {
		v.sampled = max(measuredMs-unsampledMs, 0) / measuredMs
	}
	if cpu != nil {
		s := stacks.FromProfile(cpu)
		if vi, err := s.SampleIndex(""); err == nil {
			v.Costs = NewCosts(s, vi, uc, nil)
			if requests > 0 {
				v.UsPerRequest = float64(v.Costs.total) * TimeToMicros(s.SampleTypes[vi].Unit, s.Period, s.PeriodType.Unit) / float64(requests)
			}
		}
	}
	if measuredMs > 0 {
		v.UsPerRequest = measuredMs * 1000
	}
	return v
}

// Share is the fraction of the CPU (measured, when it was) in x, a cost
// in the profile's samples.
func (v *CPUView) Share(x int64) float64 {
	if v.Costs == nil || v.Costs.total == 0 {
		return 0
	}
	return v.sampled * float64(x) / float64(v.Costs.total)
}

// Us is the CPU per request of a share, in µs.
func (v *CPUView) Us(share float64) float64 { return share * v.UsPerRequest }

// CumOf is the cost of the stacks containing any of the named functions.
func (v *CPUView) CumOf(names []string) int64 {
	return v.cumOf(func(name string) bool { return slices.Contains(names, name) }, false)
}

// cumOf is the CPU of the stacks through a function whose name matches,
// leaving out the spinners' waits when noSpin, and perflab's measuring.
func (v *CPUView) cumOf(match func(name string) bool, noSpin bool) int64 {
	s := v.Costs.set
	want := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		want[i] = match(f.Name)
	}
	var total int64
	for si := 0; si < s.NumStacks(); si++ {
		if v.Costs.IsMeasuring(si) || noSpin && v.spinnerAt(si) != "" {
			continue
		}
		for _, f := range s.Stack(si) {
			if want[f] {
				total += s.Value(si, v.Costs.vi)
				break
			}
		}
	}
	return total
}

// GCShare is the fraction of the profile's CPU in the garbage collector
// (background mark workers, assists, sweeping, scavenging), less the
// waits it spun through (SpinShares: a mark worker waiting for a goroutine
// to stop) and perflab's measuring; 0 without samples.
func (v *CPUView) GCShare() float64 {
	if v.Costs == nil {
		return 0
	}
	return v.Share(v.cumOf(ownership.IsGoGC, true))
}

// GCShare is the fraction of a CPU profile's samples in the garbage
// collector. It is the GC share to trust under a CPU budget: gctrace's
// "ms cpu" figures time the GC workers on the wall clock, so a throttled
// service's GC looks larger than the CPU it actually used.
func GCShare(cpu *profile.Profile) (float64, bool) {
	v := NewCPUView(cpu, 0, UserCode{}, 0, 0)
	if v.Costs == nil || v.Costs.total == 0 {
		return 0, false
	}
	return v.GCShare(), true
}
