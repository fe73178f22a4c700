package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/compare"
	"perflab/internal/gobench"
	"perflab/internal/report"
	"perflab/internal/store"
)

// TestCompareBenchRuns: the UI compares two benchmark runs (perflab bench
// of testdata/bench/pair, twice) as perflab compare does, with the same
// figures, and refuses a benchmark run against a service's run with a
// 400 that says why.
func TestCompareBenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks")
	}
	root := t.TempDir()
	st := store.Store{Root: root}
	var ids []string
	for _, name := range []string{"pair-base", "pair-new"} {
		res, err := gobench.Run(context.Background(), gobench.Config{Dir: filepath.Join("..", "..", "testdata", "bench", "pair"), Name: name,
			Flags: gobench.Flags{Pattern: ".", Count: 4, Benchtime: "2000x", Timeout: time.Minute}, NoProfiles: true, Store: st})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Run.ID)
	}
	h := New(st, Options{})
	code, _, body := get(t, h, "/compare?base=pair-base&new="+ids[1])
	if code != 200 {
		t.Fatalf("compare of two bench runs: %d %s", code, body)
	}
	// The figures perflab compare prints for the same runs.
	base, _ := st.ResolveGroup(ids[0])
	new, _ := st.ResolveGroup(ids[1])
	c, err := compare.BenchGroups(base, new, nil)
	if err != nil || len(c.Rows) == 0 {
		t.Fatalf("compare.BenchGroups: %v, %+v", err, c)
	}
	for _, want := range []string{"AlgorithmOne", "AlgorithmTwo", "ns/op", "allocs/op", ids[0], ids[1], "compare pair-base (base) with pair-new (new)",
		report.FormatBenchSummary(c.Rows[0].Base, c.Rows[0].Unit), report.FormatBenchDelta(c.Rows[0])} {
		if !strings.Contains(body, want) {
			t.Errorf("comparison page lacks %q:\n%s", want, body)
		}
	}
	fixtureRun{id: "20250101-120000-svc", name: "svc", at: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC), fn: "main.search", cpuMs: 1, p99: 10}.write(t, root)
	for _, path := range []string{"/compare?base=svc&new=" + ids[1], "/compare?base=pair-base,pair-new&new=" + ids[1]} {
		if code, _, body := get(t, h, path); code != 400 || !strings.Contains(body, "benchmark runs (perflab bench) compare one with one") {
			t.Errorf("GET %s: %d %q; want 400 saying bench runs compare one with one", path, code, body)
		}
	}
}
