package decide

import (
	"encoding/json"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// profilingSummary records how the CPU profile was taken and whether it
// accounts for the CPU measured over the window.
func (d *decider) profilingSummary() *runfmt.Profiling {
	pr := d.prof.Summary(d.run.Target)
	m := d.userCode().Model
	spec := m.Spec()
	pr.Src, pr.UserCode = spec.Root, spec.UserCode
	pr.Ownership, _ = json.Marshal(m) // a Spec of strings and numbers: it marshals
	work, reach := analysis.ProfileOwnership(d.prof.Profile(runfmt.ProfileCPU), d.userCode())
	pr.RuntimeWork = work
	pr.Measuring = analysis.MeasuringOf(d.prof.Profile(runfmt.ProfileCPU), d.prof.Profile(runfmt.ProfileAllocs), d.prof.Profile(runfmt.ProfileGoroutine), d.run.PerRequestCount())
	if st := d.cpuStacks(); st != nil {
		// The profiler's own record of its stacks (how perf unwound them)
		// decides; the profiling notes say it at the top.
		reach = st.StackReach
	}
	if !reach.Reach {
		pr.StackReach = &reach
	}
	return pr
}

// cpuStacks is the profiler's record of the CPU profile's stacks, nil
// when it kept none.
func (d *decider) cpuStacks() *runfmt.Stacks {
	p, _ := d.run.SavedProfile(runfmt.ProfileCPU)
	return p.Stacks
}

// scaleHot rescales the per-request figures of hot functions by f: a
// profile whose samples stand for more or less CPU than was measured
// (py-spy and rbspy count a thread that waits for a CPU as working; a
// throttled Go service's profile misses some) keeps its shares, and its
// per-request costs add up to the CPU measured, as the findings' do.
// Its shares become shares of the CPU measured: sampled is the fraction
// of it the profile could sample (less than 1 by the start-up of
// workers started in the window before they were sampled).
func scaleHot(hot []runfmt.HotFunc, f, sampled float64) {
	for i := range hot {
		h := &hot[i]
		h.CPUUsPerRequest *= f
		h.CumUsPerRequest *= f
		h.AttributedUsReq *= f
		h.LibraryUsPerRequest *= f
		h.DatabaseUsPerRequest *= f
		if h.LibraryFunc != nil {
			h.LibraryFunc.UsPerRequest *= f
		}
		h.FlatPct *= sampled
		h.CumPct *= sampled
	}
}

// serviceRuntime is the runtime of the service's busiest process: "go" for
// a service profiled through its pprof endpoint, "" when unknown.
func (d *decider) serviceRuntime() runfmt.Runtime { return d.prof.Runtime() }
