package decide

import (
	"perflab/internal/runfmt"
)

// Figures are validated before they are printed: one that cannot be true
// is a measurement error, and is explained instead of shown (the GC share
// from gctrace is checked where it is computed, in capture).
const (
	// cpuOverBudgetSlack is how far the mean CPU may exceed the quota
	// before it is an error rather than sampling jitter: the counters are
	// read a few hundred µs apart, over windows of seconds.
	cpuOverBudgetSlack = 0.03
)

// checkTargetCPU flags a mean CPU above the service's quota: the cgroup
// cannot give more, so the figure is wrong and CPU per request with it.
func (d *decider) checkTargetCPU(t *runfmt.TargetSummary) {
	if t == nil || t.CPULimitCores <= 0 || t.CPUCoresMean <= t.CPULimitCores*(1+cpuOverBudgetSlack) {
		return
	}
	d.degrade(runfmt.Degradation{Why: runfmt.DegradeOverBudget})
}

// checkCPUProfile flags a CPU profile with no samples of a service that
// used CPU: the profiler watched the wrong processes or lost its samples.
func (d *decider) checkCPUProfile(samples int, t *runfmt.TargetSummary) {
	if t == nil || samples > 0 || t.CPUSeconds < 0.1 {
		return
	}
	d.degrade(runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNoSamples})
}
