package lab

import (
	"context"
	"errors"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// oomWords is how a run says the kernel's OOM killer killed the service at
// its 64 MiB budget.
const oomWords = "killed by the kernel's OOM killer at the 64 MiB memory budget (--memory)"

// A service the OOM killer kills at its --memory budget mid-run: the run
// is partial and says so, and its first finding is the out-of-memory one.
func TestServiceOutOfMemory(t *testing.T) {
	labtest.RequireRoot(t, "cgroups")
	cfg := testConfig(t, labtest.FreeAddr(t), "PERFLAB_TEST_LEAK=1048576")
	cfg.Budget.MemoryBytes = 64 << 20
	res, err := Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("a service that keeps 1 MiB per request under a 64 MiB budget: want the run to fail")
	}
	checkOutOfMemory(t, readRun(t, res))
}

// A batch program the OOM killer kills: the same.
func TestBatchOutOfMemory(t *testing.T) {
	labtest.RequireRoot(t, "cgroups")
	cfg := batchConfig(t, "python3", "-c", "import time\nx = []\nwhile True:\n    x.append(bytearray(1 << 20)); time.sleep(0.01)")
	cfg.Profiler, cfg.Budget.MemoryBytes = ProfilerNone, 64<<20
	res, err := RunBatch(context.Background(), cfg)
	var be *BatchExitError
	if !errors.As(err, &be) || be.Status != oomWords {
		t.Fatalf("RunBatch: %v; want the program %s", err, oomWords)
	}
	checkOutOfMemory(t, readRun(t, res))
}

func checkOutOfMemory(t *testing.T, r *runfmt.Run) {
	t.Helper()
	if r.Status != runfmt.StatusPartial || !strings.Contains(r.PartialReason, oomWords) {
		t.Errorf("status %s, reason %q; want partial, %s", r.Status, r.PartialReason, oomWords)
	}
	if r.Target == nil || !r.Target.OOMKilled || r.Target.MemoryLimitBytes != 64<<20 {
		t.Errorf("target %+v; want oom_killed at 64 MiB", r.Target)
	}
	if len(r.Findings) == 0 || r.Findings[0].Kind != runfmt.FindingOutOfMemory || r.Findings[0].Figures[runfmt.FigMemoryLimit] != 64<<20 {
		t.Errorf("findings %+v; want out-of-memory first, at 64 MiB", r.Findings)
	}
}
