package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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

// TestHeadlineFindingSkipsMachineNoise: on a noisy machine a run's row
// leads with the first finding about the service, not with the requests'
// wait for a CPU the machine caused.
func TestHeadlineFindingSkipsMachineNoise(t *testing.T) {
	fs := []runfmt.Finding{{Kind: runfmt.FindingCPUContention}, {Kind: runfmt.FindingGC}}
	if f, _ := headlineFinding(fs, true); f.Kind != runfmt.FindingGC {
		t.Errorf("noisy run leads with %s; want gc", f.Kind)
	}
	if f, _ := headlineFinding(fs, false); f.Kind != runfmt.FindingCPUContention {
		t.Errorf("quiet run leads with %s; want cpu-contention (the service's own threads held its CPUs)", f.Kind)
	}
	if _, ok := headlineFinding(fs[:1], true); ok {
		t.Error("a noisy run whose only finding is the wait for a CPU leads with it; want none")
	}
}
