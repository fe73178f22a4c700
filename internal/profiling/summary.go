package profiling

import (
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// A CPU profile must account for at least minCoverage of the CPU the
// service was measured to use, or its functions are not the verdict: a
// profile of an idle master while its workers burn cores, or a handful
// of samples, cannot say where the CPU went. Sampling at ~100 Hz over a
// few seconds puts a representative profile at 80–105% of the measured
// CPU; half leaves room for a busy machine and sampling noise.
const minCoverage = 0.5

// minExplainCPUSeconds is the least measured CPU worth explaining: an idle
// service is not an unrepresentative profile.
const minExplainCPUSeconds = 0.05

// Summary records how the CPU profile was taken (the processes sampled,
// the notes, the profilers' own CPU) and whether it accounts for the CPU
// measured over the window (measured is nil when the service's CPU was
// not measured).
func (p *Set) Summary(measured *runfmt.TargetSummary) *runfmt.Profiling {
	pr := &runfmt.Profiling{}
	unsampled, started := 0.0, 0
	if t := p.tree; t != nil {
		pr.Processes = t.processes()
		pr.Notes = append(pr.Notes, t.notesSnapshot()...)
		unsampled, started = t.unsampledStart()
	}
	pr.Profilers, pr.ProfilerCPUSeconds = p.meter.uses()
	cpu := p.Profile(runfmt.ProfileCPU)
	if cpu == nil || measured == nil {
		return pr
	}
	pr.ProfileCPUSeconds = cpuNanos(cpu) / 1e9
	pr.MeasuredCPUSeconds = measured.CPUSeconds
	pr.UnsampledStartCPUSeconds = min(unsampled, pr.MeasuredCPUSeconds)
	if pr.UnsampledStartCPUSeconds > 0 {
		pr.UnsampledStartProcesses = started
	}
	if pr.MeasuredCPUSeconds > 0 {
		pr.ProfilerOverhead = pr.ProfilerCPUSeconds / pr.MeasuredCPUSeconds
	}
	if pr.MeasuredCPUSeconds < minExplainCPUSeconds {
		return pr
	}
	if sampled := pr.SampledCPUSeconds(); sampled > 0 {
		pr.Coverage = pr.ProfileCPUSeconds / sampled
	}
	if representative(pr) {
		return pr
	}
	pr.Unrepresentative = &runfmt.Unrepresentative{Samples: sampleCount(cpu)}
	p.coverageHint(pr.Unrepresentative)
	return pr
}

// representative says whether pr's profile explains the CPU measured that
// it could have sampled. The start-up of workers started during the
// window, before any profiler could attach, is not asked of it: it is
// measured apart.
func representative(pr *runfmt.Profiling) bool {
	profileCPU, measuredCPU, sampled := pr.ProfileCPUSeconds, pr.MeasuredCPUSeconds, pr.SampledCPUSeconds()
	return measuredCPU < minExplainCPUSeconds || profileCPU > 0 && profileCPU >= minCoverage*sampled
}

// fewSamples is a profile whose coverage sampling noise alone can halve.
const fewSamples = 50

// coverageHint puts in u what to try when the profile misses most of the
// CPU.
func (p *Set) coverageHint(u *runfmt.Unrepresentative) {
	switch {
	case p.base != "":
		u.Hint = runfmt.HintEndpoint
	case u.Samples < fewSamples:
		tool := p.chosen
		if used := p.used.List(); len(used) > 0 {
			tool, _ = p.reg.find(used[0])
		}
		p.mu.Lock()
		window := seconds(p.windowSecs)
		p.mu.Unlock()
		u.Hint, u.HzSampled = runfmt.HintFewSamples, tool.rate(p.cfg.PerfHz, window)
	default:
		u.Hint = runfmt.HintProcesses
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func cpuNanos(p *profile.Profile) float64 {
	for i, st := range p.SampleType {
		if st.Type == runfmt.CPUSample && st.Unit == "nanoseconds" {
			var sum int64
			for _, s := range p.Sample {
				sum += s.Value[i]
			}
			return float64(sum)
		}
	}
	return 0
}

func sampleCount(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0]
	}
	return n
}

// CountsRunnable says whether the CPU profile came from a profiler that
// reads stacks at every tick (py-spy, rbspy: Sampling.EveryTick), whose
// samples count a thread that is runnable but waiting for a CPU as
// working: on a busy machine such a profile stands for more CPU than the
// service used.
func (p *Set) CountsRunnable() bool {
	for _, name := range p.cpuSource().Profilers.List() {
		if pr, ok := p.reg.find(name); ok && pr.Sampling.EveryTick {
			return true
		}
	}
	return false
}

// Runtime is the runtime of the service's busiest process sampled (its
// endpoint's for a service profiled through one), "" when unknown.
func (p *Set) Runtime() runfmt.Runtime {
	if p == nil || p.chosen == nil {
		return ""
	}
	if p.chosen.Sampling.Endpoint {
		return p.chosen.Runtimes[0]
	}
	best, rt := -1.0, runfmt.Runtime("")
	for _, pp := range p.Processes() {
		if pp.CPUSeconds > best && pp.Runtime != "" {
			best, rt = pp.CPUSeconds, pp.Runtime
		}
	}
	return rt
}

// Processes are the service's processes the profilers saw, by pid, with
// their share of the CPU profile; nil when they were not sampled.
func (p *Set) Processes() []runfmt.ProcessProfile {
	if p == nil || p.tree == nil {
		return nil
	}
	return p.tree.processes()
}
