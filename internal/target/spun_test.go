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
	q := noisyQuality(t)
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

// noisyQuality is the quality of a window in which other processes kept
// both cores busy.
func noisyQuality(t *testing.T) runfmt.Quality {
	t.Helper()
	m := MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 2, SelfCores: 0.02}
	q := Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	if !q.Noisy() {
		t.Fatalf("Assess = %s; want noisy", q.Summary)
	}
	return q
}

// TestMarkOverCounted: a noisy run whose profile, from a sampler that
// counts waits as work, stands for 1.5× the CPU measured or more has its
// profile shares moved among the figures the noise distorts, with the
// reason, and its summary says so; one below that, a clean run and the
// shared list are left as they were.
func TestMarkOverCounted(t *testing.T) {
	q := noisyQuality(t)
	MarkOverCounted(&q, 10.87)
	if slices.Contains(q.Valid, ProfileSharesValid) || !slices.Contains(q.Invalid, "profile shares (the profiler counted threads waiting for a CPU as working: the profile stands for 10.9× the CPU measured)") {
		t.Errorf("valid %q, invalid %q; want the profile shares invalid, with why", q.Valid, q.Invalid)
	}
	if !strings.HasSuffix(q.Summary, "; the profile's shares do not hold (the profiler counted threads waiting for a CPU as working: the profile stands for 10.9× the CPU measured)") {
		t.Errorf("summary %q", q.Summary)
	}
	if !slices.Contains(noisyValid, ProfileSharesValid) {
		t.Errorf("MarkOverCounted changed the shared list of valid figures: %q", noisyValid)
	}
	under := noisyQuality(t)
	MarkOverCounted(&under, 1.4)
	if !slices.Contains(under.Valid, ProfileSharesValid) || len(under.Invalid) != len(noisyInvalid) {
		t.Errorf("a profile at 1.4× the CPU measured: valid %q, invalid %q; want its shares valid", under.Valid, under.Invalid)
	}
	clean := Assess(QualityInput{Machine: MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 0.6, SelfCores: 0.02}, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	MarkOverCounted(&clean, 10.87)
	if clean.Noisy() || len(clean.Invalid) > 0 {
		t.Errorf("a clean run was marked: %s, invalid %q", clean.Summary, clean.Invalid)
	}
	MarkOverCounted(nil, 10.87) // a run without a quality verdict
}
