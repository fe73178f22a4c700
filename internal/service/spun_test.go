package service

import (
	"slices"
	"testing"

	"perflab/internal/runfmt"
)

// TestMarkSpun: a noisy run whose runtime spun most of its CPU has its CPU
// per request moved among the figures the noise distorts, with the share
// spun; a clean run and the shared list of trusted figures are left as
// they were.
func TestMarkSpun(t *testing.T) {
	q := noisyQuality(t)
	MarkSpun(&q, 0.92)
	if slices.Contains(q.Trusted, runfmt.RunCPUPerRequest) || !slices.Contains(q.Distorted, runfmt.RunCPUPerRequest) || q.SpunShare != 0.92 {
		t.Errorf("trusted %q, distorted %q, spun %v; want the CPU per request distorted, spun 0.92", q.Trusted, q.Distorted, q.SpunShare)
	}
	if !slices.Contains(noisyTrusted, runfmt.RunCPUPerRequest) {
		t.Errorf("MarkSpun changed the shared list of trusted figures: %q", noisyTrusted)
	}
	clean := Assess(QualityInput{Machine: MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 0.6, SelfCores: 0.02}, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	MarkSpun(&clean, 0.92)
	if clean.Noisy() || clean.SpunShare != 0 || len(clean.Distorted) > 0 {
		t.Errorf("a clean run was marked: %+v", clean)
	}
	batch := noisyQuality(t)
	AsBatch(&batch)
	if MarkSpun(&batch, 0.92); batch.SpunShare != 0 || !slices.Equal(batch.Distorted, noisyBatchDistorted) {
		t.Errorf("a batch program's quality was marked: %+v", batch)
	}
}

// noisyQuality is the quality of a window in which other processes kept
// both cores busy.
func noisyQuality(t *testing.T) runfmt.Quality {
	t.Helper()
	m := MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 2, SelfCores: 0.02}
	q := Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	if !q.Noisy() {
		t.Fatalf("Assess = %s; want noisy", q.Verdict)
	}
	return q
}

// TestMarkOverCounted: a noisy run whose profile, from a sampler that
// counts waits as work, stands for 1.5× the CPU measured or more has its
// profile shares moved among the figures the noise distorts, with how
// many times the CPU measured; one below that, a clean run and the shared
// list are left as they were.
func TestMarkOverCounted(t *testing.T) {
	q := noisyQuality(t)
	MarkOverCounted(&q, 10.87)
	if slices.Contains(q.Trusted, runfmt.RunProfileShares) || !slices.Contains(q.Distorted, runfmt.RunProfileShares) || q.ProfileOverMeasured != 10.87 {
		t.Errorf("trusted %q, distorted %q, over %v; want the profile shares distorted at 10.87×", q.Trusted, q.Distorted, q.ProfileOverMeasured)
	}
	if !slices.Contains(noisyTrusted, runfmt.RunProfileShares) {
		t.Errorf("MarkOverCounted changed the shared list of trusted figures: %q", noisyTrusted)
	}
	under := noisyQuality(t)
	MarkOverCounted(&under, 1.4)
	if !slices.Contains(under.Trusted, runfmt.RunProfileShares) || len(under.Distorted) != len(noisyDistorted) || under.ProfileOverMeasured != 0 {
		t.Errorf("a profile at 1.4× the CPU measured: trusted %q, distorted %q; want its shares trusted", under.Trusted, under.Distorted)
	}
	clean := Assess(QualityInput{Machine: MachineWindow{Seconds: 4, HostCores: 2, ProcCores: 0.6, SelfCores: 0.02}, Service: &runfmt.TargetSummary{CPUCoresMean: 0.59}})
	MarkOverCounted(&clean, 10.87)
	if clean.Noisy() || len(clean.Distorted) > 0 {
		t.Errorf("a clean run was marked: %+v", clean)
	}
	MarkOverCounted(nil, 10.87) // a run without a quality verdict
}
