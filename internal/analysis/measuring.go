package analysis

import (
	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// perflab's own measuring. A Go service serves perflab's profile and
// trace requests itself, and their work lands in its profiles: the CPU
// and allocations of runtime/pprof writing each profile (gzip and flate
// under it), of runtime/trace and the runtime's tracer, and the
// goroutines of net/http/pprof's handlers. The rule of what is measuring
// is ownership's (ownership.IsGoMeasuring: a stack with such a frame
// anywhere is measuring); every view here derives from it. Costs counts a
// measuring stack in its total and in Measured, never in a function's
// cost, so a table's shares stay shares of all the profile stands for
// (of the CPU measured, once scaled) and no table lists a frame of it;
// CPUOwnerShares gives it an owner of its own; the totals below leave it
// out of the service's and count it apart.

// SplitTotal is the total of the sample type typ of p ("" for the last,
// pprof's default for a profile without one), split into the service's
// own and perflab's measuring; ok is false when p lacks the type.
func SplitTotal(p *profile.Profile, typ string) (service, measuring int64, ok bool) {
	if p == nil || len(p.SampleType) == 0 {
		return 0, 0, false
	}
	vi := len(p.SampleType) - 1
	if typ != "" {
		if vi = sampleTypeIndex(p, typ); vi < 0 {
			return 0, 0, false
		}
	}
	cl := defaultModel.ClassifyProfile(p)
	for _, s := range p.Sample {
		if vi >= len(s.Value) {
			continue
		}
		if cl.Measuring(s) {
			measuring += s.Value[vi]
		} else {
			service += s.Value[vi]
		}
	}
	return service, measuring, true
}

// AllocsPerRequest is the bytes and objects the service allocated per
// request in an allocation profile of the window (alloc_space and
// alloc_objects), perflab's measuring left out; zero when requests <= 0
// or the profile lacks the type.
func AllocsPerRequest(allocs *profile.Profile, requests int64) (bytes, objects float64) {
	if requests <= 0 {
		return 0, 0
	}
	b, _, _ := SplitTotal(allocs, "alloc_space")
	o, _, _ := SplitTotal(allocs, "alloc_objects")
	return float64(b) / float64(requests), float64(o) / float64(requests)
}

// MeasuringOf is what perflab's measuring cost the service in a window,
// for run.json: its share of the CPU profile, its allocations per request
// (none without requests) and its goroutines in the profile at the
// window's end. Nil when no profile shows any.
func MeasuringOf(cpu, allocs, goroutines *profile.Profile, requests int64) *runfmt.Measuring {
	m := &runfmt.Measuring{}
	if svc, meas, ok := SplitTotal(cpu, ""); ok && svc+meas > 0 {
		m.CPUShare = float64(meas) / float64(svc+meas)
	}
	if requests > 0 {
		_, b, _ := SplitTotal(allocs, "alloc_space")
		_, o, _ := SplitTotal(allocs, "alloc_objects")
		m.AllocBytesPerRequest, m.AllocObjectsPerRequest = float64(b)/float64(requests), float64(o)/float64(requests)
	}
	_, m.Goroutines, _ = SplitTotal(goroutines, "")
	if *m == (runfmt.Measuring{}) {
		return nil
	}
	return m
}
