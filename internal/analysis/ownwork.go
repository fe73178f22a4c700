package analysis

import (
	"slices"

	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// runtimeWorkMin is the least share of the CPU a kind of the runtime's
// own work needs to be kept, or, for one the runtime always reports, to
// be given a remedy.
const runtimeWorkMin = 0.02

// ProfileOwnership reads, with uc's ownership model, what a CPU profile
// says beyond functions: the runtime's own work (JIT compiler, GC,
// interpreter, other; each kept from runtimeWorkMin of the CPU, with
// what to do, and those the runtime always reports — the JVM's JIT, GC
// and interpreter — kept whatever their share, or with why the profile
// cannot tell them; the waits the runtime spun through, spinners', and
// perflab's measuring are no work's) and whether its stacks reach the
// user's code.
func ProfileOwnership(cpu *profile.Profile, uc UserCode) ([]runfmt.RuntimeWork, runfmt.StackReach) {
	m := uc.model()
	lang := m.Spec().Runtime
	reported := ownership.ReportedWork(lang)
	if cpu == nil || len(cpu.Sample) == 0 {
		var out []runfmt.RuntimeWork
		for _, w := range reported {
			out = append(out, runfmt.RuntimeWork{Work: w.String(), NotMeasured: "no CPU profile"})
		}
		return out, runfmt.StackReach{Reach: true}
	}
	vi := len(cpu.SampleType) - 1 // pprof's default: the last sample type
	cl := m.ClassifyProfile(cpu)
	var by [ownership.OtherRuntime + 1]int64
	var total int64
	for _, s := range cpu.Sample {
		if vi >= len(s.Value) {
			continue
		}
		v := s.Value[vi]
		total += v
		if sampleSpinner(s) != "" || cl.Measuring(s) {
			continue // a wait the runtime spun through, or perflab's measuring: no work's
		}
		if w := cl.Work(s); w != ownership.NoWork && int(w) < len(by) {
			by[w] += v
		}
	}
	var out []runfmt.RuntimeWork
	for i, v := range by {
		w := ownership.Work(i)
		always := slices.Contains(reported, w)
		if w == ownership.NoWork || !always && (total <= 0 || float64(v) < runtimeWorkMin*float64(total)) {
			continue
		}
		rw := runfmt.RuntimeWork{Work: w.String()}
		switch why := cl.Unmeasured(cpu, w); {
		case why != "":
			rw.NotMeasured = why
		case total <= 0:
			rw.NotMeasured = "the CPU profile has no CPU time"
		default:
			rw.Share = float64(v) / float64(total)
			if rw.Share >= runtimeWorkMin {
				rw.Lang = lang // what to do about it is the language's
			}
		}
		out = append(out, rw)
	}
	return out, cl.Depth(cpu, vi).Verdict
}
