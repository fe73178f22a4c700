package ui

import (
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestSparklineShowsTheNewestRuns: a service with more runs than a
// sparkline holds shows its newest ones, ending on the latest run.
func TestSparklineShowsTheNewestRuns(t *testing.T) {
	var rows []runRow // newest first: CPU 1.0 ms for the newest, rising to the oldest
	for i := range maxSpark + 10 {
		rows = append(rows, runRow{ID: fmt.Sprintf("run-%03d", 999-i), Name: "api", HasCPU: true, CPUMs: 1 + float64(i)/100})
	}
	g := groupRuns(rows)[0]
	want := fmt.Sprintf("1.39 → 1 ms over %d runs", maxSpark)
	if g.CPUTrend != want {
		t.Errorf("trend of %d runs = %q; want the newest %d: %q", len(rows), g.CPUTrend, maxSpark, want)
	}
	if !strings.Contains(string(g.CPUSpark), want) {
		t.Errorf("sparkline's title does not say %q: %s", want, g.CPUSpark)
	}
}

// TestTrendSaysWhichRunsWereNoisy: a run measured on a noisy machine is
// marked on the sparklines and counted in the trend's words.
func TestTrendSaysWhichRunsWereNoisy(t *testing.T) {
	rows := []runRow{
		{ID: "3", Name: "api", HasCPU: true, CPUMs: 1.4, Noisy: true},
		{ID: "2", Name: "api", HasCPU: true, CPUMs: 1.2},
		{ID: "1", Name: "api", HasCPU: true, CPUMs: 1},
	}
	g := groupRuns(rows)[0]
	if want := "1 → 1.4 ms over 3 runs (1 noisy)"; g.CPUTrend != want {
		t.Errorf("trend %q; want %q", g.CPUTrend, want)
	}
	if n := strings.Count(string(g.CPUSpark), `class="noisy"`); n != 1 {
		t.Errorf("sparkline marks %d noisy runs; want 1: %s", n, g.CPUSpark)
	}
}

// TestIndexP99OfAFailedLoad: a run whose every request failed has no p99,
// and the index shows none rather than 0.00.
func TestIndexP99OfAFailedLoad(t *testing.T) {
	root, ids := fixtureRuns(t)
	dir := filepath.Join(root, ids[len(ids)-1])
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Load.Errors, r.Load.Latency = r.Load.Requests, runfmt.Latency{}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	_, _, body := get(t, New(store.Store{Root: root}, Options{}), "/")
	if strings.Contains(body, `<td class="num">0.00</td>`) {
		t.Error("the index shows a p99 of 0.00 for a run whose every request failed")
	}
}

// TestIndexLeadsWithTheVerdictsFirstFinding: a run far below its CPU
// budget whose latency is mostly waiting answers where the time goes; its
// row in the index and its report's headline lead with the same finding,
// the wait, though a CPU finding comes first in its list; with the run at
// its budget, both lead with the CPU finding; on a noisy machine the wait
// for a CPU is never the lead.
func TestIndexLeadsWithTheVerdictsFirstFinding(t *testing.T) {
	root, ids := fixtureRuns(t)
	id := ids[len(ids)-1]
	dir := filepath.Join(root, id)
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	wait, hot := r.Findings[0], r.Findings[1]
	noise := runfmt.Finding{Kind: runfmt.FindingCPUContention, Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 9e3, runfmt.FigShare: 0.9}}
	r.Findings = []runfmt.Finding{noise, hot, wait}
	r.Quality = &runfmt.Quality{Verdict: runfmt.QualityNoisy, Causes: []runfmt.NoiseCause{runfmt.NoiseOtherProcesses}, HostCores: 2, OtherCores: 1.6}
	cpu, latency := 1.0, 20.0
	rest := latency - cpu
	r.Ledger = &runfmt.Ledger{
		Time: &runfmt.TimeAccount{LatencyMs: latency, Rows: []runfmt.LedgerRow{{Part: runfmt.PartCPU, MsPerRequest: &cpu}, {Part: runfmt.PartDownstream, MsPerRequest: &rest}}},
		CPU:  &runfmt.CPUAccount{MeasuredMs: cpu, Source: "cgroup-v2"},
	}
	for _, c := range []struct {
		use  float64
		want runfmt.Finding
	}{{0.2, wait}, {0.97, hot}} {
		r.Target.CPUCoresMean = c.use
		if err := runfmt.WriteFile(dir, r); err != nil {
			t.Fatal(err)
		}
		s := New(store.Store{Root: root}, Options{})
		title := html.EscapeString(report.FindingTitle(c.want))
		if _, _, body := get(t, s, "/"); !strings.Contains(body, `<td class="finding">`+title) {
			t.Errorf("at %.0f%% of its budget the index row does not lead with %q", 100*c.use, title)
		}
		if _, _, page := get(t, s, "/runs/"+id+"/"); !strings.Contains(page, "<b>First finding:</b> "+title) {
			t.Errorf("at %.0f%% of its budget report.html's headline does not lead with %q", 100*c.use, title)
		}
	}
}
