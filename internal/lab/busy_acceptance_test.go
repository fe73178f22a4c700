package lab

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// TestAcceptanceBusyMachine is the busy machine's own test: a service run
// beside two CPU-bound processes (at nice -10, for at most 30 s, killed
// when the test ends), as a shared CI machine or a developer's laptop
// runs it. The verdict must say the measurement is NOISY, name the
// spinners among the other processes, and still name the planted
// culprit among its top 3 findings with a cost per request: the other
// work takes CPU from the service, and a profile of the service's own
// CPU time still shares it out among its functions as before. The
// Python service is sampled by py-spy, which reads the stacks at every
// tick, runnable threads included.
func TestAcceptanceBusyMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs services beside CPU-bound processes")
	}
	for _, tc := range []struct {
		name, planted string
		config        func(t *testing.T) Config
	}{
		{"go", "main.search", func(t *testing.T) Config { return goService(t, "tolower", "/search?q=oak") }},
		{"python", "hot_checksum", func(t *testing.T) Config {
			python := labtest.NeedTool(t, "python3", "")
			labtest.NeedTool(t, "py-spy", "")
			addr := labtest.FreeAddr(t)
			script, _ := filepath.Abs("../../testdata/services/pyhot/server.py")
			cfg := acceptanceConfig(t, addr, "/checksum", python, script, "--addr", addr)
			cfg.Profiler = ProfilerChoice(runfmt.ProfilerPySpy)
			return cfg
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.config(t)
			pids := spinners(t, 2, 30*time.Second, -1)
			r, _ := runAcceptance(t, cfg)
			q := r.Quality
			if q == nil {
				t.Fatal("no quality block")
			}
			t.Logf("quality: %s", report.QualityLine(q))
			if !q.Noisy() || len(q.Causes) == 0 {
				t.Errorf("quality %q %q beside two CPU-bound processes; want noisy, with its causes", q.Verdict, q.Causes)
			}
			for _, pid := range pids {
				if !slices.ContainsFunc(q.TopOther, func(p runfmt.ProcessCPU) bool { return p.PID == pid }) {
					t.Errorf("spinner %d is not among the other processes named: %+v", pid, q.TopOther)
				}
			}
			var out bytes.Buffer
			if err := report.WriteHeadline(&out, r); err != nil || !strings.HasPrefix(out.String(), "Measurement: NOISY — other processes used") {
				t.Errorf("headline %q, %v; want it to say the measurement is noisy", out.String(), err)
			}
			checkPlanted(t, r, tc.planted)
		})
	}
}
