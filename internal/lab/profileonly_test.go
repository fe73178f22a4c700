package lab

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"perflab/internal/labtest"

	"perflab/internal/runfmt"
)

// TestProfileOnly launches tolower, loads it from the test while Profile
// captures its pprof profiles, and checks the run directory has no load but
// the profiles, the service's CPU and the planted function.
func TestProfileOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles a service for seconds")
	}
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/search?q=oak", acceptanceBinary(t, "tolower"), "-addr", addr, "-pprof-addr", pprofAddr)
	cfg.Pprof = "http://" + pprofAddr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Requests until the test ends; while the service does not answer
	// (before it listens, after it stops), they wait for it to.
	go func() {
		for ctx.Err() == nil {
			labtest.Until(time.Second, func() bool {
				resp, err := http.Get("http://" + addr + "/search?q=oak")
				if err == nil {
					resp.Body.Close()
				}
				return err == nil || ctx.Err() != nil
			})
		}
	}()
	res, err := Profile(ctx, cfg, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusComplete || r.Load != nil || r.Target == nil || r.Target.CPUCoresMean <= 0 {
		t.Errorf("status %s, load %v, target %+v: want a complete run without load, with the service's CPU", r.Status, r.Load, r.Target)
	}
	var types []runfmt.ProfileType
	for _, p := range r.Profiles {
		types = append(types, p.Type)
	}
	for _, want := range []runfmt.ProfileType{"cpu", "allocs", "heap", "goroutine"} {
		if !slices.Contains(types, want) {
			t.Errorf("profiles %v lack %s", types, want)
		}
	}
	if rank, _ := plantedRank(r.Findings, "main.search"); rank == 0 {
		t.Errorf("main.search is not in the findings:%s", describeFindings(r.Findings))
	}
	if _, err := Profile(ctx, cfg, 0); err == nil {
		t.Error("a zero window was accepted")
	}
}
