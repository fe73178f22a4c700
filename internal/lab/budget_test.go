package lab

import (
	"context"
	"fmt"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// burnConfig runs cpuburn (each request burns 2 ms of CPU) under a budget.
func burnConfig(t *testing.T, cpus float64, concurrency int) Config {
	bin := labtest.BuildService(t, "cpuburn")
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Command = []string{bin, "-addr", addr, "-pprof-addr", pprofAddr}
	cfg.Env = nil
	cfg.Budget = service.Budget{CPUs: cpus}
	u := *cfg.Load.Targets[0].URL
	u.Path, u.RawQuery = "/burn", "us=2000"
	cfg.Load.Targets[0].URL, cfg.ReadyURL = &u, u.String() // cpuburn answers 404 at /
	cfg.Load.Concurrency = concurrency
	cfg.Load.Duration = 3 * time.Second
	cfg.Warmup = 500 * time.Millisecond
	return cfg
}

func TestHalfCoreBudgetSaturated(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU for seconds")
	}
	// The budget caps the service whatever the machine does; whether it
	// reaches the cap depends on what other processes leave it (on a
	// quiet machine, always: 4 clients of 2 ms requests want 4 cores). A
	// run that did not, on a machine perflab found noisy, is measured
	// again; one perflab found clean must have.
	var ts *runfmt.TargetSummary
	labtest.Clean(t, func(int) string {
		res, err := Run(context.Background(), burnConfig(t, 0.5, 4))
		if err != nil {
			t.Fatal(err)
		}
		r := readRun(t, res)
		ts = r.Target
		if ts.CPUCoresMean < 0.47 && r.Quality.Noisy() {
			return fmt.Sprintf("other processes left the service %.3f cores of its 0.5 (%s)", ts.CPUCoresMean, report.QualityLine(r.Quality))
		}
		return ""
	})
	if ts.CPUCoresMean > 0.53 || ts.CPULimitCores != 0.5 {
		t.Errorf("mean cores %.3f, limit %v under --cpus 0.5; want at most 0.53 of a 0.5-core limit", ts.CPUCoresMean, ts.CPULimitCores)
	}
	if ts.CPUCoresMean < 0.47 {
		t.Errorf("mean cores %.3f under --cpus 0.5 on a machine perflab found clean; want 0.5 ± 0.03", ts.CPUCoresMean)
	} else if ts.ThrottledPct <= 0 || !ts.CPUBound {
		t.Errorf("throttled %.1f%%, cpu-bound %v at %.3f cores: want throttling reported at the 0.5-core limit", ts.ThrottledPct, ts.CPUBound, ts.CPUCoresMean)
	}
	// 2 ms of CPU per request (plus the HTTP work around it).
	if ts.CPUMsPerRequest < 1.9 || ts.CPUMsPerRequest > 2.4 {
		t.Errorf("CPU per request %.3f ms; want about 2 ms", ts.CPUMsPerRequest)
	}
}

func TestTwoCoreBudgetNotAtItsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU for seconds")
	}
	cfg := burnConfig(t, 2, 1) // one request at a time: at most one core
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := readRun(t, res).Target
	if ts.CPUBound || ts.ThrottledPct > 1 {
		t.Errorf("cpu-bound %v, throttled %.1f%% with %.2f of 2 cores used: no throttling should be claimed", ts.CPUBound, ts.ThrottledPct, ts.CPUCoresMean)
	}
}
