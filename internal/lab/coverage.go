package lab

import (
	"fmt"

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

// profilingSummary records how the CPU profile was taken and whether it
// accounts for the CPU measured over the window.
func (s *session) profilingSummary(cpu *profile.Profile) *runfmt.Profiling {
	pr := &runfmt.Profiling{}
	uc := s.userCode()
	pr.Src = uc.Root
	if s.cfg.UserCode != nil {
		pr.UserCode = s.cfg.UserCode.String()
	}
	if t := s.prof.tree; t != nil {
		pr.Processes = t.processes()
		pr.Notes = append(pr.Notes, t.notesSnapshot()...)
	}
	pr.Profilers, pr.ProfilerCPUSeconds = s.prof.meter.uses()
	if cpu == nil || s.run.Target == nil {
		return pr
	}
	pr.ProfileCPUSeconds = cpuNanos(cpu) / 1e9
	pr.MeasuredCPUSeconds = s.run.Target.CPUSeconds
	if pr.MeasuredCPUSeconds > 0 {
		pr.ProfilerOverhead = pr.ProfilerCPUSeconds / pr.MeasuredCPUSeconds
	}
	if pr.MeasuredCPUSeconds < minExplainCPUSeconds {
		return pr
	}
	pr.Coverage = pr.ProfileCPUSeconds / pr.MeasuredCPUSeconds
	pr.NotRepresentative = notRepresentative(pr.ProfileCPUSeconds, pr.MeasuredCPUSeconds, sampleCount(cpu), s.coverageHint(sampleCount(cpu)))
	return pr
}

// notRepresentative says why a profile standing for profileCPU seconds
// of CPU in samples cannot explain measuredCPU seconds, or "" when it can.
func notRepresentative(profileCPU, measuredCPU float64, samples int64, hint string) string {
	if measuredCPU < minExplainCPUSeconds || profileCPU >= minCoverage*measuredCPU {
		return ""
	}
	return fmt.Sprintf("the CPU profile accounts for %.0f%% of the CPU measured (%.2f of %.2f CPU-seconds, %d samples): "+
		"it cannot say where the service's CPU went, so its functions are not the verdict%s",
		100*profileCPU/measuredCPU, profileCPU, measuredCPU, samples, hint)
}

// fewSamples is a profile whose coverage sampling noise alone can halve.
const fewSamples = 50

// coverageHint says what to try when the profile (of samples samples)
// misses most of the CPU.
func (s *session) coverageHint(samples int64) string {
	switch {
	case s.prof.mode == runfmt.ProfilerPprof:
		return " (is the pprof endpoint the service's own, and does the service run more processes?)"
	case samples < fewSamples:
		tool := s.prof.mode
		if used := s.prof.used.List(); len(used) > 0 {
			tool = used[0]
		}
		return fmt.Sprintf(" (sampled at %d Hz: raise --perf-hz or lengthen the window)", s.cfg.samplerHz(tool, seconds(s.prof.windowSecs)))
	}
	return " (see the processes in run.json's profiling block: were they all sampled?)"
}

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

// scaleHot rescales the per-request figures of hot functions by f: a
// profile whose samples stand for more or less CPU than was measured
// (py-spy and rbspy count a thread that waits for a CPU as working; a
// throttled Go service's profile misses some) keeps its shares, and its
// per-request costs add up to the CPU measured, as the findings' do.
func scaleHot(hot []runfmt.HotFunc, f float64) {
	for i := range hot {
		h := &hot[i]
		h.CPUUsPerRequest *= f
		h.CumUsPerRequest *= f
		h.AttributedUsReq *= f
	}
}

// serviceRuntime is the runtime of the service's busiest process: "go" for
// a service profiled through its pprof endpoint, "" when unknown.
func (s *session) serviceRuntime() runfmt.Runtime {
	if s.prof == nil {
		return ""
	}
	if s.prof.mode == runfmt.ProfilerPprof {
		return runfmt.RuntimeGo
	}
	best, rt := -1.0, runfmt.Runtime("")
	if s.run.Profiling != nil {
		for _, p := range s.run.Profiling.Processes {
			if p.CPUSeconds > best && p.Runtime != "" {
				best, rt = p.CPUSeconds, p.Runtime
			}
		}
	}
	return rt
}
