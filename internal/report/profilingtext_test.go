package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestVerdictProfiling(t *testing.T) {
	r := &runfmt.Run{ID: "x", Status: runfmt.StatusComplete,
		Target: &runfmt.TargetSummary{CPUCoresMean: 1.8, CPUMsPerRequest: 3},
		Hot:    []runfmt.HotFunc{{Function: "run", File: "/usr/lib/gems/puma/cluster.rb", UserCode: true, CPUUsPerRequest: 3000}},
		Profiling: &runfmt.Profiling{
			Notes:              []string{"Ruby service sampled with perf: rbspy is not installed (cargo install rbspy)"},
			NotRepresentative:  "the CPU profile accounts for 1% of the CPU measured",
			ProfilerCPUSeconds: 0.1, MeasuredCPUSeconds: 5, ProfilerOverhead: 0.02,
			Processes: []runfmt.ProcessProfile{
				{PID: 10, Runtime: "ruby", Profiler: "perf", CPUSeconds: 0.01},
				{PID: 11, Runtime: "ruby", Profiler: "perf", CPUSeconds: 2.4},
				{PID: 12, Runtime: "ruby", Profiler: "perf", CPUSeconds: 0},
			},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Profiling:\tRuby service sampled with perf", "NOT REPRESENTATIVE:", "3 processes (ruby) in the profile: 11 2.40 CPU-s (perf)", "Sampling cost:\t0.100 CPU-s for the profilers, 2.0%"} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cluster.rb") || strings.Contains(out, "Top user-code functions") {
		t.Errorf("a profile that is not representative still names functions:\n%s", out)
	}
	if i, j := strings.Index(out, "NOT REPRESENTATIVE"), strings.Index(out, "CPU per request"); i > j {
		t.Errorf("the profiling notes come after the figures; want them at the top:\n%s", out)
	}
}
