package compare

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/store"
)

// buggy and fixed are the two builds of the tests: fixed drops the
// per-request strings.ToLower under main.search.
func buggy(i int) spec {
	j := 1 + 0.01*float64(i%3)
	return spec{name: "buggy", rps: 400 * j, p99: 20 / j, cpuMs: 2.4 * j, gcPct: 5, rss: 30 << 20,
		searchNs: 400_000, lowerNs: 1_800_000 + int64(i)*10_000, otherNs: 200_000, allocBytes: 4096}
}

func fixed(i int) spec {
	j := 1 + 0.01*float64(i%3)
	return spec{name: "fixed", rps: 1500 * j, p99: 6 / j, cpuMs: 0.62 * j, gcPct: 5, rss: 30 << 20,
		searchNs: 400_000 + int64(i)*5_000, otherNs: 200_000, allocBytes: 0}
}

func group5(t *testing.T, root string, f func(int) spec, offset int) []store.Entry {
	var es []store.Entry
	for i := range 5 {
		es = append(es, writeRun(t, root, offset+i, f(i)))
	}
	return es
}

func metric(t *testing.T, c *runfmt.Comparison, name runfmt.MetricName) runfmt.MetricComparison {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no %s row in %+v", name, c.Metrics)
	return runfmt.MetricComparison{}
}

func TestCompareFix(t *testing.T) {
	root := t.TempDir()
	base, new := group5(t, root, buggy, 0), group5(t, root, fixed, 10)
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	cpu := metric(t, c, runfmt.MetricCPU)
	if !cpu.Significant || cpu.PValue == nil || math.Abs(*cpu.PValue-0.0079) > 0.001 || math.Abs(cpu.DeltaPct-(0.62/2.4-1)*100) > 0.5 {
		t.Errorf("cpu_per_request = %+v (p %v); want significant, p≈0.008, delta≈-74%%", cpu, cpu.PValue)
	}
	if gc := metric(t, c, runfmt.MetricGC); gc.Significant || gc.DeltaPct != 0 {
		t.Errorf("gc_pct identical in both groups: %+v; want not significant", gc)
	}
	allocs := metric(t, c, runfmt.MetricAllocs)
	if math.Abs(allocs.Base.Median-(4096+64)) > 1e-6 || math.Abs(allocs.New.Median-64) > 1e-6 {
		t.Errorf("allocs_per_request medians %v, %v; want 4160, 64 (profile totals per request)", allocs.Base.Median, allocs.New.Median)
	}
	top := c.Functions[0]
	if top.Function != "main.search" || top.Profile != "cpu" || !top.UserCode || !top.Significant {
		t.Fatalf("top function row = %+v; want main.search, cpu, user code, significant", top)
	}
	// main.search is charged the strings.ToLower it called: 2.2 ms then 0.4 ms.
	if math.Abs(top.Base-2200) > 30 || math.Abs(top.New-410) > 30 {
		t.Errorf("main.search base %.1f new %.1f µs/request; want ≈2200 and ≈410", top.Base, top.New)
	}
	if len(c.Base.Runs) != 5 || c.Base.Requests != 1000 {
		t.Errorf("base group %+v; want 5 runs of 1000 requests", c.Base)
	}
	if res.CPU == nil || res.CPU.BaseRequests != 5000 || res.Allocs == nil {
		t.Errorf("merged profiles %+v, %+v; want both, CPU standing for 5000 requests", res.CPU, res.Allocs)
	}
	if slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "runs per side") }) {
		t.Errorf("5 vs 5 runs warned about too few runs: %q", c.Warnings)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("encoding the comparison: %v", err)
	}
}

func TestCompareFailOn(t *testing.T) {
	root := t.TempDir()
	buggyRuns, fixedRuns := group5(t, root, buggy, 0), group5(t, root, fixed, 10)
	ths, err := stats.ParseFailOn("cpu_per_request>+5%,p99>+10%,rps<-5%,gc_pct>+1%")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(fixedRuns, buggyRuns, Options{FailOn: ths})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	want := []string{"cpu_per_request>+5%", "p99>+10%", "rps<-5%"}
	if !slices.Equal(c.Failed, want) || len(c.Thresholds) != 4 || c.Thresholds[3].Violated {
		t.Errorf("fixed→buggy failed %q thresholds %+v; want %q and gc_pct passing", c.Failed, c.Thresholds, want)
	}
	res, _ = Compare(buggyRuns, fixedRuns, Options{FailOn: ths})
	if len(res.Comparison.Failed) != 0 {
		t.Errorf("buggy→fixed failed %q; want none", res.Comparison.Failed)
	}
}

func TestCompareOneRunEach(t *testing.T) {
	root := t.TempDir()
	res, err := Compare([]store.Entry{writeRun(t, root, 0, buggy(0))}, []store.Entry{writeRun(t, root, 1, fixed(0))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	cpu := metric(t, c, runfmt.MetricCPU)
	if !cpu.TooFew || cpu.Significant || cpu.PValue != nil || cpu.Base.CILow != nil {
		t.Errorf("1 vs 1 cpu row %+v; want too few, no p-value, no interval", cpu)
	}
	want := "need >= 4 runs per side for a confident verdict (have 1 and 1)"
	if n := strings.Count(strings.Join(c.Warnings, "\n"), want); n != 1 {
		t.Errorf("warnings %q; want %q once", c.Warnings, want)
	}
	if len(c.Functions) == 0 || c.Functions[0].PValue != nil {
		t.Errorf("functions %+v; want rows without p-values", c.Functions)
	}
	b, err := json.Marshal(cpu)
	if err != nil || !strings.Contains(string(b), `"p_value":null`) || !strings.Contains(string(b), `"ci_low":null`) {
		t.Errorf("JSON %s, %v; want null p_value and ci_low", b, err)
	}
}

func TestCompareDifferentURLs(t *testing.T) {
	root := t.TempDir()
	a := writeRun(t, root, 0, spec{url: "http://127.0.0.1:8080/search", cpuMs: 1, rps: 1})
	b := writeRun(t, root, 1, spec{url: "http://127.0.0.1:8080/render", cpuMs: 1, rps: 1})
	_, err := Compare([]store.Entry{a}, []store.Entry{b}, Options{})
	if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), "/search, /render") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("different paths: err = %v; want ErrIncomparable naming both and --force", err)
	}
	res, err := Compare([]store.Entry{a}, []store.Entry{b}, Options{Force: true})
	if err != nil || !hasWarning(res.Comparison, "compared because of --force") {
		t.Errorf("--force: %v, warnings %v; want a comparison with a warning", err, res)
	}
	// Only the port differs: the same endpoint of another instance.
	c := writeRun(t, root, 2, spec{url: "http://127.0.0.1:9090/search", cpuMs: 1, rps: 1})
	res, err = Compare([]store.Entry{a}, []store.Entry{c}, Options{})
	if err != nil || !hasWarning(res.Comparison, "URL host differs between runs: 127.0.0.1:8080 vs 127.0.0.1:9090") {
		t.Errorf("different ports: %v; want a warning, got %+v", err, res)
	}
}

func hasWarning(c *runfmt.Comparison, part string) bool {
	return slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

func TestCompareWarnsWhatDiffers(t *testing.T) {
	root := t.TempDir()
	b0 := buggy(0)
	b0.cpus = 1
	f0 := fixed(0)
	f0.cpus = 2
	res, err := Compare([]store.Entry{writeRun(t, root, 0, b0)}, []store.Entry{writeRun(t, root, 1, f0)}, Options{Expected: []string{"command"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(res.Comparison, "CPU budget (--cpus) differs between runs: 1 cores vs 2 cores") {
		t.Errorf("warnings %q; want the CPU budget named", res.Comparison.Warnings)
	}
	if hasWarning(res.Comparison, "command differs") {
		t.Errorf("warnings %q; the command was expected to differ", res.Comparison.Warnings)
	}
}

func TestComparePartialAndEmptyRuns(t *testing.T) {
	root := t.TempDir()
	p := buggy(0)
	p.partial = "the service exited with status 2"
	e := buggy(1)
	e.noLoad = true
	base := []store.Entry{writeRun(t, root, 0, p), writeRun(t, root, 1, e), writeRun(t, root, 2, buggy(2))}
	res, err := Compare(base, []store.Entry{writeRun(t, root, 3, fixed(0))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if len(c.Base.Runs) != 2 || !hasWarning(c, "is partial (the service exited with status 2): included") || !hasWarning(c, "measured no requests: left out") {
		t.Errorf("base runs %q warnings %q; want 2 runs, the partial one warned about, the empty one left out", c.Base.Runs, c.Warnings)
	}
	_, err = Compare([]store.Entry{base[1]}, base[2:], Options{})
	if err == nil || !strings.Contains(err.Error(), "no base run with measured requests") {
		t.Errorf("only an empty base run: err = %v; want a clear error", err)
	}
}

func TestCompareMissingProfiles(t *testing.T) {
	root := t.TempDir()
	f := fixed(0)
	f.noProfiles = true
	res, err := Compare([]store.Entry{writeRun(t, root, 0, buggy(0))}, []store.Entry{writeRun(t, root, 1, f)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if len(c.Functions) != 0 || res.CPU != nil || !hasWarning(c, "no cpu profile in the new runs") || !hasWarning(c, "no allocs profile in the new runs") {
		t.Errorf("functions %+v warnings %q; want none and the missing profiles named", c.Functions, c.Warnings)
	}
	if !hasWarning(c, "allocs_per_request: measured by the base runs only") {
		t.Errorf("warnings %q; want allocs_per_request named as one-sided", c.Warnings)
	}
	metric(t, c, runfmt.MetricCPU) // still compared
}

func TestCompareNewerSchema(t *testing.T) {
	root := t.TempDir()
	e := writeRun(t, root, 0, buggy(0))
	e.Run.SchemaVersion = runfmt.SchemaVersion + 1
	if err := runfmt.WriteFile(e.Dir, e.Run); err != nil {
		t.Fatal(err)
	}
	_, err := store.Store{Root: root}.Resolve(e.Dir)
	if err == nil || !strings.Contains(err.Error(), "newer than this perflab understands") {
		t.Fatalf("Resolve of a newer run = %v; want the schema error", err)
	}
	_, err = Compare([]store.Entry{{Dir: e.Dir, Err: err}}, []store.Entry{writeRun(t, root, 1, fixed(0))}, Options{})
	if err == nil || !strings.Contains(err.Error(), "upgrade perflab") {
		t.Errorf("Compare with an unreadable run = %v; want the schema error", err)
	}
}
