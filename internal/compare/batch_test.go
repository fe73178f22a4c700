package compare

import (
	"errors"
	"testing"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/store"
)

// writeBatchRun writes a batch program's run: wall and CPU seconds, peak
// RSS, and a CPU profile with main.search's CPU for the whole run.
func writeBatchRun(t *testing.T, root string, i int, wall, cpu float64, searchNs int64) store.Entry {
	t.Helper()
	st := store.Store{Root: root}
	dir, id, err := st.Create("trace", time.Date(2025, 1, 2, 3, 4, i, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	r := &runfmt.Run{
		SchemaVersion: runfmt.SchemaVersion, Name: "trace", ID: id, Status: runfmt.StatusComplete,
		Config: runfmt.Config{Command: []string{"./trace"}}, Env: runfmt.Environment{Hostname: "box", HostCores: 2},
		Batch:    &runfmt.Batch{WallS: wall, CPUS: cpu, UserS: cpu, RSSMaxBytes: 10 << 20},
		Profiles: []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, Source: runfmt.SourceProfilers(runfmt.ProfilerPerf), File: "profiles/cpu.pb.gz"}},
	}
	writeProfile(t, dir, "cpu", cpuProfile(spec{requests: 1, searchNs: searchNs, lowerNs: searchNs / 2, otherNs: 1e6}))
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return store.Entry{Dir: dir, Run: r}
}

// TestCompareBatch: batch runs compare on wall, cpu and rss_max, with
// their functions' CPU per run; --fail-on names the batch metrics.
func TestCompareBatch(t *testing.T) {
	root := t.TempDir()
	var base, new []store.Entry
	for i := range 6 {
		base = append(base, writeBatchRun(t, root, 2*i, 3+0.01*float64(i), 2.5, 2e9))
		new = append(new, writeBatchRun(t, root, 2*i+1, 2+0.01*float64(i), 2.6, 1e9))
	}
	ths, err := stats.ParseFailOn("wall_time>+5%")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(base, new, Options{FailOn: ths})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if !c.Batch || c.Base.Requests != 0 {
		t.Errorf("batch %v, requests %g; want a batch comparison, no requests", c.Batch, c.Base.Requests)
	}
	var names []runfmt.MetricName
	for _, m := range c.Metrics {
		names = append(names, m.Name)
		if m.Name == runfmt.MetricWall && (!m.Significant || m.DeltaPct > -30 || m.Unit != runfmt.UnitS) {
			t.Errorf("wall %+v; want -33%% in s, significant", m)
		}
	}
	if len(names) != 3 || names[0] != runfmt.MetricWall || names[1] != runfmt.MetricCPUS || names[2] != runfmt.MetricRSS {
		t.Errorf("metrics %v; want wall_time, cpu_time, rss_max", names)
	}
	if len(c.Failed) != 0 || len(c.Thresholds) != 1 || !c.Thresholds[0].Measured {
		t.Errorf("thresholds %+v, failed %v; want wall_time>+5%% measured and passed", c.Thresholds, c.Failed)
	}
	for _, f := range c.Functions {
		if f.Function == "main.search" && (f.Delta > -1.4e6 || f.Delta < -1.6e6) {
			t.Errorf("main.search %+v; want -1.5 s per run (its own 1 s and strings.ToLower's 0.5 s)", f)
		}
	}
}

// TestCompareBatchWithServiceRefused: a batch program's runs and a
// service's are not compared.
func TestCompareBatchWithServiceRefused(t *testing.T) {
	root := t.TempDir()
	base := []store.Entry{writeBatchRun(t, root, 0, 3, 2.5, 2e9)}
	new := []store.Entry{writeRun(t, root, 1, spec{rps: 100, p99: 5, cpuMs: 1, searchNs: 1e5})}
	if _, err := Compare(base, new, Options{}); !errors.Is(err, ErrIncomparable) {
		t.Errorf("Compare(batch, service) error %v; want ErrIncomparable", err)
	}
}
