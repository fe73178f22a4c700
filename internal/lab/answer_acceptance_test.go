package lab

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/compare"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestAcceptanceCPUCulpritFirst: a Go service whose CPU is nearly all one
// user line, under a 1-core budget and more clients than it keeps up
// with. Its goroutines wait for the CPU, for the collector and for each
// other, but those waits are the saturated CPU's consequences: the
// answer names a CPU limit, and the line that burns the CPU is finding
// #1, above every wait, with its payoff.
func TestAcceptanceCPUCulpritFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs services under load for seconds")
	}
	labtest.RequireRoot(t, "cgroups for the CPU budget")
	for _, c := range []struct {
		service, path, fn, line string
		args                    []string
	}{
		{"fmtprint", "/file?name=3", "main.logRequest", "Fprintln", []string{"-stdout"}},
		{"tolower", "/search?q=steel", "main.search", "ToLower", nil},
	} {
		t.Run(c.service, func(t *testing.T) {
			cfg := goService(t, c.service, c.path)
			cfg.Command = append(cfg.Command, c.args...)
			cfg.Load.Concurrency, cfg.Load.Duration = 8, 4*time.Second
			r, _ := runAcceptance(t, cfg)
			limit := r.Answer.First()
			t.Logf("limit %s %+v; doubts %v; findings:%s", limit.Kind, limit.Figures, r.Answer.Doubts, describeFindings(r.Findings))
			if !limit.Kind.CPU() {
				t.Errorf("limit %s; want the CPU (%.2f cores used of a 1-core budget)", limit.Kind, r.Target.CPUCoresMean)
			}
			if rank, f := plantedRank(r.Findings, c.fn); rank != 1 {
				t.Fatalf("%s ranked %d; want #1", c.fn, rank)
			} else {
				checkFirstFinding(t, f, c.line)
			}
		})
	}
}

// checkFirstFinding checks a CPU culprit's finding: its hot line holds
// the planted call, and its payoff is its CPU at least.
func checkFirstFinding(t *testing.T, f runfmt.Finding, call string) {
	t.Helper()
	if len(f.Lines) == 0 || !strings.Contains(f.Lines[0].Text, call) {
		t.Errorf("first finding's lines %+v; want the %s line first", f.Lines, call)
	}
	cpu := f.Figures[runfmt.FigCPUPerRequest]
	if got := f.Payoff[runfmt.FigCPUPerRequest]; got < cpu || cpu <= 0 {
		t.Errorf("payoff %v; want at least its CPU, %.1f µs per request", f.Payoff, cpu)
	}
	if f.Payoff[runfmt.FigMaxRPS] <= 0 {
		t.Errorf("payoff %v; want the capacity the budget would then allow", f.Payoff)
	}
}

// TestAcceptancePredictionsChecked: five planted costs, each fixed by
// its service's -mode=fixed, compared A/B (two runs a side): the CPU
// per request the base runs' findings predicted their fix would save is
// within 25% of the change measured. The first base run names its
// planted function among its first findings, in run.json and in
// report.html (checkPlanted, checkReport).
func TestAcceptancePredictionsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs A/B experiments of five services")
	}
	labtest.RequireRoot(t, "cgroups for the CPU budget")
	for _, c := range []struct{ service, path, planted string }{
		{"fmtprint", "/file?name=3", "main.logRequest"},
		{"tolower", "/search?q=oak", "main.search"},
		{"pngencode", "/image", "main.renderImage"},
		{"gcheavy", "/parse", "main.parseRecord"},
		{"gomash", "/price?sku=1234", "main.NewMash"},
	} {
		t.Run(c.service, func(t *testing.T) {
			base := goService(t, c.service, c.path)
			base.Load.Duration = 2 * time.Second
			fixed := base
			fixed.Command = append(slices.Clone(base.Command), "-mode", "fixed")
			bres, nres, err := AB(context.Background(), base, fixed, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkPlanted(t, bres[0].Run, c.planted)
			checkReport(t, bres[0].Dir, c.planted)
			res, err := compare.Compare(entries(bres), entries(nres), compare.Options{Expected: []string{"command"}})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Comparison.Predictions
			if p == nil {
				t.Fatalf("no prediction checked; base findings:%s", describeFindings(bres[0].Run.Findings))
			}
			t.Logf("predicted %.1f µs, measured %.1f µs: %+v", -p.PredictedUs, p.MeasuredUs, p.Findings)
			if measured := -p.MeasuredUs; measured <= 0 || math.Abs(p.PredictedUs-measured) > 0.25*measured {
				t.Errorf("predicted -%.1f µs of CPU per request, measured %+.1f µs; want within 25%%", p.PredictedUs, p.MeasuredUs)
			}
		})
	}
}

// entries are runs' results as the store lists them.
func entries(rs []*Result) []store.Entry {
	out := make([]store.Entry, len(rs))
	for i, r := range rs {
		out[i] = store.Entry{Dir: r.Dir, Run: r.Run}
	}
	return out
}
