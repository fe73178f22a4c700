package report

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestDegradationText: each degradation is said from the run's figures;
// one of a run before schema 5 is its words.
func TestDegradationText(t *testing.T) {
	r := &runfmt.Run{
		Target: &runfmt.TargetSummary{CPUCoresMean: 1.12, CPULimitCores: 1, CPUSeconds: 3.2},
		Load: &runfmt.LoadResult{Requests: 200, Errors: 150, ErrorKinds: map[string]int64{"refused": 150},
			ErrorSamples: map[string]string{"refused": "dial tcp 127.0.0.1:1: connect: connection refused"}},
		Profiling: &runfmt.Profiling{ProfileCPUSeconds: 0.02, MeasuredCPUSeconds: 3.6,
			Unrepresentative: &runfmt.Unrepresentative{Samples: 2, Hint: runfmt.HintFewSamples, HzSampled: 99}},
	}
	for _, tc := range []struct {
		d    runfmt.Degradation
		want string
	}{
		{runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: "py-spy: exit status 1"}, "the CPU profile failed: py-spy: exit status 1"},
		{runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeTimedOut, Note: "pprof endpoint x did not answer within 45s: timed out"},
			"the CPU profile failed: pprof endpoint x did not answer within 45s: timed out"},
		{runfmt.Degradation{Why: runfmt.DegradeNoEndpoint}, "no net/http/pprof endpoint of the service found: no profiles (give --pprof URL)"},
		{runfmt.Degradation{Why: runfmt.DegradeNothingToSample}, "no net/http/pprof endpoint of the service found and no process to sample: no profiles (give --pprof URL or --pid)"},
		{runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNoSamples}, "the CPU profile has no samples while the service used 3.20 s of CPU"},
		{runfmt.Degradation{Why: runfmt.DegradeOverBudget}, "measurement error: the service used 1.12 cores on average, above its 1-core budget; its CPU figures are not trustworthy"},
		{runfmt.Degradation{Why: runfmt.DegradeRequestsFailed},
			"75% of the 200 requests failed (150 refused: dial tcp 127.0.0.1:1: connect: connection refused): the figures are of a service that mostly did not answer as expected"},
		{runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNotRepresentative},
			"the CPU profile accounts for 0.56% of the CPU measured (0.02 of 3.60 CPU-seconds, 2 samples): it cannot say where the service's CPU went, so its functions are not the verdict (sampled at 99 Hz: raise --perf-hz or lengthen the window)"},
		{runfmt.Degradation{Why: runfmt.DegradeInterrupted}, "profiles interrupted (Ctrl-C)"},
		{runfmt.Degradation{Why: runfmt.DegradeFailed, Note: "BenchmarkX: its CPU profile: exit status 2"}, "BenchmarkX: its CPU profile: exit status 2"},
		{runfmt.Degradation{Note: "as an earlier perflab said it"}, "as an earlier perflab said it"},
	} {
		if got := DegradationText(r, tc.d); got != tc.want {
			t.Errorf("DegradationText(%+v) =\n%s\nwant\n%s", tc.d, got, tc.want)
		}
	}
}
