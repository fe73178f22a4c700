package report

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestQualityLine: the quality's line is made from its figures: the
// causes of the noise, then what it distorts (a service's latency and
// throughput, its CPU per request when its runtime spun, its profile's
// shares when the profiler counted waits; a batch program's wall time),
// or for a clean run the other processes' and perflab's CPU. A run
// before schema 5 is shown in its own words.
func TestQualityLine(t *testing.T) {
	top := []runfmt.ProcessCPU{{PID: 7, Name: "stress", Cores: 0.98}, {PID: 8, Name: "yes", Cores: 0.61}, {PID: 9, Name: "go", Cores: 0.2}, {PID: 10, Name: "sh", Cores: 0.1}}
	noisy := func(causes ...runfmt.NoiseCause) *runfmt.Quality {
		return &runfmt.Quality{Verdict: runfmt.QualityNoisy, Causes: causes, HostCores: 2, OtherCores: 1.6, TopOther: top, StealCores: 0.3,
			PerflabCores: 0.12, PerflabWaitMsPerRequest: 0.4, PerflabRunqueueWaitS: 1.2,
			Trusted:   []runfmt.RunFigure{runfmt.RunCPUPerRequest, runfmt.RunAllocations, runfmt.RunProfileShares},
			Distorted: []runfmt.RunFigure{runfmt.RunLatency, runfmt.RunThroughput, runfmt.RunFindMaxRates}}
	}
	spun := noisy(runfmt.NoiseOtherProcesses)
	spun.Distorted, spun.SpunShare = append(spun.Distorted, runfmt.RunCPUPerRequest), 0.92
	over := noisy(runfmt.NoiseSteal)
	over.Distorted, over.ProfileOverMeasured = append(over.Distorted, runfmt.RunProfileShares), 10.87
	batch := noisy(runfmt.NoiseOtherProcesses)
	batch.Distorted = []runfmt.RunFigure{runfmt.RunWallTime, runfmt.RunCoresBusy}
	for _, tc := range []struct {
		q    *runfmt.Quality
		want string
	}{
		{noisy(runfmt.NoiseOtherProcesses, runfmt.NoiseGeneratorWaited),
			"NOISY — other processes used 1.60 of 2 cores (stress[7] 0.98, yes[8] 0.61, go[9] 0.20); the load generator waited 400.0 µs per request for a CPU (perflab used 0.12 cores); latency and throughput figures are inflated, CPU per request far less"},
		{spun, "NOISY — other processes used 1.60 of 2 cores (stress[7] 0.98, yes[8] 0.61, go[9] 0.20); latency, throughput and CPU per request are inflated (the runtime spun 92% of the CPU waiting for threads without a CPU)"},
		{over, "NOISY — the hypervisor took 0.30 cores (steal); latency and throughput figures are inflated, CPU per request far less; the profile's shares do not hold (the profiler counted threads waiting for a CPU as working: the profile stands for 10.9× the CPU measured)"},
		{batch, "NOISY — other processes used 1.60 of 2 cores (stress[7] 0.98, yes[8] 0.61, go[9] 0.20); the wall time and the cores busy are inflated or held back, the CPU time far less"},
		{&runfmt.Quality{Verdict: runfmt.QualityClean, HostCores: 2, OtherCores: 0.05, PerflabCores: 0.12, PerflabRunqueueWaitS: 0.01},
			"clean — other processes used 0.05 of 2 cores; perflab used 0.12 cores and waited 0.01 s for a CPU"},
		{&runfmt.Quality{Verdict: runfmt.QualityNoisy, SummaryNote: "NOISY — as an earlier perflab said it", ReasonNotes: []string{"its reason"}},
			"NOISY — as an earlier perflab said it"},
	} {
		if got := QualityLine(tc.q); got != tc.want {
			t.Errorf("QualityLine(%s %v) =\n%s\nwant\n%s", tc.q.Verdict, tc.q.Causes, got, tc.want)
		}
	}
	if got := QualityCauses(&runfmt.Quality{ReasonNotes: []string{"its reason"}}); len(got) != 1 || got[0] != "its reason" {
		t.Errorf("the causes of a run before schema 5: %q", got)
	}
}

// TestTargetVerdictText: the service's CPU verdict is made from its
// window's figures: at its budget, under it, at the host's cores without
// one, or too few samples to judge; a summary of no window says none.
func TestTargetVerdictText(t *testing.T) {
	for _, tc := range []struct {
		t    runfmt.TargetSummary
		want string
	}{
		{runfmt.TargetSummary{CPUCoresMean: 0.98, CPULimitCores: 1, ThrottledPct: 72, CPUBound: true, HostCores: 2},
			"CPU-bound at its budget: 0.98 of 1 core used, throttled in 72% of periods"},
		{runfmt.TargetSummary{CPUCoresMean: 0.31, CPULimitCores: 2, HostCores: 2}, "not CPU-bound: 0.31 of 2 cores used, no throttling"},
		{runfmt.TargetSummary{CPUCoresMean: 1.95, CPUBound: true, HostCores: 2}, "CPU-bound on the whole host: 1.95 of 2 host cores used (no CPU budget)"},
		{runfmt.TargetSummary{CPUCoresMean: 0.47, HostCores: 2}, "not CPU-bound: 0.47 of 2 host cores used (no CPU budget)"},
		{runfmt.TargetSummary{CPUUnjudged: true, Samples: 1, HostCores: 2}, "not enough samples to judge CPU use (1 in the window)"},
		{runfmt.TargetSummary{Verdict: "as an earlier perflab said it"}, "as an earlier perflab said it"},
		{runfmt.TargetSummary{}, ""},
	} {
		if got := TargetVerdictText(&tc.t); got != tc.want {
			t.Errorf("TargetVerdictText(%+v) = %q; want %q", tc.t, got, tc.want)
		}
	}
}
