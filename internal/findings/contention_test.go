package findings

import (
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestFindingsContention: requests that wait for a CPU the service and the
// load generator share get the contention finding, which names who held
// the CPUs and how to measure cleanly; on a machine made noisy by other
// processes the wait is that noise, which the measurement's banner says:
// no finding, and no off-cpu finding blaming I/O either.
func TestFindingsContention(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.render", 1e9).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 20}}
	shared := &runfmt.Quality{Verdict: runfmt.QualityClean, HostCores: 2, OtherCores: 0.05, PerflabCores: 0.9, ServiceCores: 0.3,
		PerflabRunqueueWaitS: 6, TopOther: []runfmt.ProcessCPU{{PID: 4242, Name: "sshd", Cores: 0.04}}}
	noisy := &runfmt.Quality{Verdict: runfmt.QualityNoisy, HostCores: 2, OtherCores: 1.6, PerflabCores: 0.3, ServiceCores: 0.3,
		PerflabRunqueueWaitS: 6, Causes: []runfmt.NoiseCause{runfmt.NoiseOtherProcesses},
		TopOther: []runfmt.ProcessCPU{{PID: 4243, Name: "stress", Cores: 0.98}}}
	for _, tc := range []struct {
		name   string
		target runfmt.TargetSummary
		q      *runfmt.Quality
		want   string // "" for no finding
	}{
		// 4 ms of the service's wait and 6 ms of the generator's: 10 of 19 ms.
		{"service and generator", runfmt.TargetSummary{CPUCoresMean: 0.3, CPULimitCores: 1, CPUMsPerRequest: 1, CPUSeconds: 1, RunqueueWaitSeconds: 4}, shared, "sshd (pid 4242) 0.04"},
		// The service's threads waited as long as they ran: they are
		// starved, whatever the per-request sums say.
		{"starved", runfmt.TargetSummary{CPUCoresMean: 0.3, CPULimitCores: 1, CPUMsPerRequest: 1, CPUSeconds: 1, RunqueueWaitSeconds: 1.5}, nil, "This is not I/O"},
		{"machine noise", runfmt.TargetSummary{CPUCoresMean: 0.3, CPULimitCores: 1, CPUMsPerRequest: 1, CPUSeconds: 1, RunqueueWaitSeconds: 4}, noisy, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: &tc.target, Quality: tc.q})
			c := findKind(fs, runfmt.FindingCPUContention)
			if len(findKind(fs, runfmt.FindingOffCPU)) != 0 {
				t.Fatalf("findings = %+v; want no off-cpu: the requests waited for a CPU", fs)
			}
			if tc.want == "" {
				if len(c) != 0 {
					t.Errorf("the machine's noise is a finding: %s", title(c[0]))
				}
				return
			}
			if len(c) != 1 {
				t.Fatalf("findings = %+v; want cpu-contention", fs)
			}
			for _, want := range []string{tc.want, "--service-cpus", "--load-cpus", "CPU per request and allocations far less"} {
				if !strings.Contains(detail(c[0]), want) {
					t.Errorf("contention detail lacks %q: %s", want, detail(c[0]))
				}
			}
		})
	}
}

func TestFindingsOffCPULeavesOutRunqueueWait(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.query", 1e9).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 50}}
	target := &runfmt.TargetSummary{CPUCoresMean: 0.1, CPULimitCores: 2, CPUMsPerRequest: 1, CPUSeconds: 5, RunqueueWaitSeconds: 3}
	q := &runfmt.Quality{Verdict: runfmt.QualityClean, PerflabRunqueueWaitS: 2}
	fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: target, Quality: q})
	o := findKind(fs, runfmt.FindingOffCPU)
	if len(o) != 1 || len(findKind(fs, runfmt.FindingCPUContention)) != 0 {
		t.Fatalf("findings = %+v; want off-cpu (5 of 49 ms off-CPU is the run queue)", fs)
	}
	if !strings.Contains(detail(o[0]), "5.00 ms (the service's threads 3.00 ms, the load generator's 2.00 ms)") || !strings.Contains(detail(o[0]), "the other 44.00 ms is waiting on I/O") {
		t.Errorf("off-cpu detail does not take the run-queue wait out: %s", detail(o[0]))
	}
	// A wait that explains all but 4x the CPU leaves nothing to blame on I/O.
	target.RunqueueWaitSeconds = 40
	target.CPUSeconds = 50
	q.PerflabRunqueueWaitS = 6
	fs = Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: target, Quality: q})
	if len(findKind(fs, runfmt.FindingOffCPU)) != 0 {
		t.Errorf("off-cpu finding although the run queue explains the waiting: %+v", fs)
	}
}
