package target

import (
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestMarkSpun: a noisy run whose runtime spun most of its CPU has its CPU
// per request moved among the figures the noise distorts, with the reason,
// and its summary says so; a clean run and the shared list of valid
// figures are left as they were.
func TestMarkSpun(t *testing.T) {
	m := MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 2, SelfCores: 0.02}
	q := Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	if !q.Noisy() {
		t.Fatalf("Assess = %s; want noisy", q.Summary)
	}
	MarkSpun(&q, 0.92)
	if slices.Contains(q.Valid, cpuValid) || !slices.Contains(q.Invalid, "CPU per request (the runtime spun 92% of the CPU waiting for threads without a CPU)") {
		t.Errorf("valid %q, invalid %q; want the CPU per request invalid, with why", q.Valid, q.Invalid)
	}
	if !strings.HasSuffix(q.Summary, "; latency, throughput and CPU per request are inflated (the runtime spun 92% of the CPU waiting for threads without a CPU)") {
		t.Errorf("summary %q", q.Summary)
	}
	if !slices.Contains(noisyValid, cpuValid) {
		t.Errorf("MarkSpun changed the shared list of valid figures: %q", noisyValid)
	}
	clean := Assess(QualityInput{Machine: MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 0.6, SelfCores: 0.02}, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	before := clean.Summary
	MarkSpun(&clean, 0.92)
	if clean.Noisy() || clean.Summary != before || len(clean.Invalid) > 0 {
		t.Errorf("a clean run was marked: %s, invalid %q", clean.Summary, clean.Invalid)
	}
}
