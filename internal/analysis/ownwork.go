package analysis

import (
	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// runtimeWorkMin is the least share of the CPU a kind of the runtime's
// own work needs to be kept.
const runtimeWorkMin = 0.02

// ProfileOwnership reads, with uc's ownership model, what a CPU profile
// says beyond functions: the runtime's own work (JIT compiler, GC,
// interpreter, other; each kept from runtimeWorkMin of the CPU, with
// what to do) and whether its stacks reach the user's code.
func ProfileOwnership(cpu *profile.Profile, uc UserCode) ([]runfmt.RuntimeWork, ownership.Verdict) {
	if cpu == nil || len(cpu.Sample) == 0 {
		return nil, ownership.Verdict{Reach: true}
	}
	vi := len(cpu.SampleType) - 1 // pprof's default: the last sample type
	m := uc.model()
	cl := m.ClassifyProfile(cpu)
	var by [ownership.OtherRuntime + 1]int64
	var total int64
	for _, s := range cpu.Sample {
		if vi >= len(s.Value) {
			continue
		}
		v := s.Value[vi]
		total += v
		if w := cl.Work(s); w != ownership.NoWork && int(w) < len(by) {
			by[w] += v
		}
	}
	var out []runfmt.RuntimeWork
	lang := m.Spec().Runtime
	for w, v := range by {
		if w == int(ownership.NoWork) || total <= 0 || float64(v) < runtimeWorkMin*float64(total) {
			continue
		}
		out = append(out, runfmt.RuntimeWork{Work: ownership.Work(w).String(), Share: float64(v) / float64(total),
			Remedy: ownership.WorkRemedy(ownership.Work(w), lang)})
	}
	return out, cl.Depth(cpu, vi).Verdict
}
