package decide

import (
	"runtime"

	"perflab/internal/analysis"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// Profile fills in a profile-only run: the service's CPU over the window
// (when it has a process), the GC, the hot and allocating functions and
// the findings, without per-request figures.
func (dec *Decision) Profile() { dec.d.summarizeProfile() }

// summarizeProfile fills what a profile-only run measured: the service's
// CPU over the window (when it has a process), the GC, the hot and
// allocating functions and the findings, without per-request figures.
func (d *decider) summarizeProfile() {
	r, p := d.run, d.prof
	from, to := p.Window()
	cpu, allocs := p.Profile(runfmt.ProfileCPU), p.Profile(runfmt.ProfileAllocs)
	if from.IsZero() {
		return
	}
	if d.in.Sampler != nil {
		ts := service.Window(d.in.Sampler.Samples(), from, to, d.in.LimitCores, runtime.NumCPU())
		ts.MemoryLimitBytes, ts.PIDs = d.in.LimitMemory, d.in.PIDs
		if r.Target != nil {
			ts.ExitCode = r.Target.ExitCode
		}
		r.Target = &ts
	}
	r.Quality = d.quality(from, to, r.Target, nil)
	r.GC = d.gcSummary(from, to)
	r.Profiling = d.profilingSummary()
	uc, verdictCPU := d.userCode(), d.verdictCPU()
	if cpu != nil {
		d.checkCPUProfile(len(cpu.Sample), r.Target)
		r.Hot = analysis.HotFor(cpu, 0, HotRows, uc)
	}
	if allocs != nil {
		r.Allocs = analysis.AllocTopFor(allocs, 0, allocRows, uc)
	}
	r.Findings = findings.Findings(findings.FindingInput{
		CPU: verdictCPU, Allocs: allocs, Mutex: p.Profile(runfmt.ProfileMutex), Block: p.Profile(runfmt.ProfileBlock),
		GoroutinesStart: p.Profile(runfmt.ProfileGoroutineStart), GoroutinesEnd: p.Profile(runfmt.ProfileGoroutine),
		WindowSeconds: to.Sub(from).Seconds(), Target: r.Target, GC: r.GC, Quality: r.Quality, UserCode: uc, Runtime: d.serviceRuntime(),
	})
	d.culprit()
}
