package findings

import (
	"slices"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// TestSpinWaitIsNotGC reads the CPU profile of a Go test service
// (testdata/gc-suspendg-spin.pb.gz, 81 requests in 4 s) run beside two
// CPU-bound processes: its GC mark worker spent 92% of the CPU in
// runtime.suspendG, waiting for goroutines whose threads the kernel was not
// running. That is a spin-wait finding on the crowded machine, not a GC
// finding advising to allocate less, and the ledger's GC owner leaves it
// out.
func TestSpinWaitIsNotGC(t *testing.T) {
	cpu, err := stacks.ReadProfileFile("testdata/gc-suspendg-spin.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	gc, ok := analysis.GCShare(cpu) // as lab sets gc.cpu_pct from the profile
	if !ok || gc > 0.10 {
		t.Errorf("GC share %.2f (ok %v); want under 10%%: its mark worker's spin is not GC work", gc, ok)
	}
	work, _ := analysis.ProfileOwnership(cpu, analysis.UserCode{})
	for _, w := range work {
		if w.Work == runfmt.WorkGC && w.Share > 0.10 {
			t.Errorf("runtime work %+v; want the GC under 10%%", w)
		}
	}
	owners := analysis.CPUOwnerShares(cpu, analysis.UserCode{})
	if owners[runfmt.OwnerSpin] < 0.85 || owners[runfmt.OwnerGC] > 0.10 {
		t.Errorf("CPU owners %v; want spin-wait ≥ 85%% and gc ≤ 10%%", owners)
	}
	in := FindingInput{CPU: cpu, Requests: 81,
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 29.14, CPUSeconds: 2.36, RunqueueWaitSeconds: 4.67, CPUCoresMean: 0.59, CPULimitCores: 1},
		GC:     &runfmt.GCSummary{CPUPct: 100 * gc, CPUPctSource: runfmt.SourceCPUProfile, Count: 19, HeapMaxMiB: 11, AllocMiBPerS: 13, GOGC: "100"}}
	fs := Findings(in)
	if len(fs) == 0 || fs[0].Kind != runfmt.FindingSpinWait {
		t.Fatalf("findings %v; want spin-wait first", kinds(fs))
	}
	if sh := fs[0].Figures[runfmt.FigShare]; sh < 0.85 {
		t.Errorf("spin-wait share %.2f; want ≥ 0.85", sh)
	}
	if e := fs[0].Evidence.Functions; len(e) == 0 || e[0].Function != "runtime.suspendG" {
		t.Errorf("spin-wait names %+v; want runtime.suspendG first", e)
	}
	for _, f := range fs {
		if f.Kind == runfmt.FindingGC {
			t.Errorf("a GC finding: %+v", f.Figures)
		}
	}
}

// TestRuntimeLockSpinIsSpinWait reads a CPU profile of the same service
// recorded beside CPU-bound processes (testdata/runtime-lock-spin.pb.gz, 43
// requests in 2.8 s at 44.7 ms of CPU each, against 1.4 ms alone): its
// threads spent more than half the CPU in the runtime's own lock, in
// lock2 and unlock2, and in casgstatus's compare-and-swap, while they
// waited 2.6 s for a CPU. That is the spin-wait finding, first, with
// unlock2, lock2 and casgstatus named, and the GC's share leaves it out.
func TestRuntimeLockSpinIsSpinWait(t *testing.T) {
	cpu, err := stacks.ReadProfileFile("testdata/runtime-lock-spin.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	gc, _ := analysis.GCShare(cpu)
	in := FindingInput{CPU: cpu, Requests: 43,
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 44.69, CPUSeconds: 1.92, RunqueueWaitSeconds: 2.63, CPUCoresMean: 0.69, CPULimitCores: 1},
		GC:     &runfmt.GCSummary{CPUPct: 100 * gc, CPUPctSource: runfmt.SourceCPUProfile, Count: 9, HeapMaxMiB: 10, AllocMiBPerS: 8.6, GOGC: "100"}}
	fs := Findings(in)
	if len(fs) == 0 || fs[0].Kind != runfmt.FindingSpinWait {
		t.Fatalf("findings %v; want spin-wait first", kinds(fs))
	}
	if sh := fs[0].Figures[runfmt.FigShare]; sh < 0.5 {
		t.Errorf("spin-wait share %.2f; want ≥ 0.5", sh)
	}
	var named []string
	for _, e := range fs[0].Evidence.Functions {
		named = append(named, e.Function)
	}
	for _, want := range []string{"runtime.unlock2", "runtime.lock2", "runtime.casgstatus"} {
		if !slices.Contains(named, want) {
			t.Errorf("spin-wait names %v; want %s among them", named, want)
		}
	}
	if gc > 0.20 {
		t.Errorf("GC share %.2f; want under 20%%: its sweeper's spin on a runtime lock is not GC work", gc)
	}
}

// TestRuntimeSpinStacksReachCode reads a CPU profile of another test
// service recorded beside CPU-bound processes (testdata/runtime-lock-spin-2.pb.gz, 34
// requests at 70 ms of CPU each): 96% of its samples had no frame of the
// service's code, most of them wholly in the runtime, spinning on its own
// locks in the scheduler and the sweeper. Those stacks are the runtime's,
// not stacks that stop short of the code: the profile's stacks reach the
// code, and the findings are ranked from it, spin-wait first.
func TestRuntimeSpinStacksReachCode(t *testing.T) {
	cpu, err := stacks.ReadProfileFile("testdata/runtime-lock-spin-2.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	// The model the run read: a Go service of the main module perflab.
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangGo,
		Modules: []ownership.Module{{Lang: ownership.LangGo, Path: "perflab", Version: "(devel)", User: true}}})
	if err != nil {
		t.Fatal(err)
	}
	_, reach := analysis.ProfileOwnership(cpu, analysis.UserCode{Model: m})
	if !reach.Reach {
		t.Fatalf("stacks judged not to reach the code: %+v", reach)
	}
	in := FindingInput{CPU: cpu, Requests: 34,
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 70.19, CPUSeconds: 2.39, RunqueueWaitSeconds: 6.29, CPUCoresMean: 0.54, CPULimitCores: 1}}
	if fs := Findings(in); len(fs) == 0 || fs[0].Kind != runfmt.FindingSpinWait {
		t.Errorf("findings %v; want spin-wait first", kinds(fs))
	}
}
