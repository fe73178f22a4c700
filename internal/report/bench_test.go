package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

func ptr(v float64) *float64 { return &v }

// benchRun is a bench run of two benchmarks: AlgorithmOne allocates.
func benchRun() *runfmt.Run {
	sum := func(m float64) runfmt.MetricSummary {
		return runfmt.MetricSummary{Median: m, CILow: ptr(m * 0.98), CIHigh: ptr(m * 1.02), N: 6}
	}
	one := runfmt.Benchmark{Name: "AlgorithmOne-2", Package: "example.com/pair", Metrics: []runfmt.BenchMetric{
		{Unit: "ns/op", Better: "lower", Summary: sum(3410)}, {Unit: "B/op", Better: "lower", Summary: sum(53)},
		{Unit: "allocs/op", Better: "lower", Summary: sum(2)}, {Unit: "MB/s", Better: "higher", Summary: sum(75.2)}}}
	one.CPU = &runfmt.BenchProfile{PerOp: 3300, UserPerOp: 3000, Lines: []runfmt.BenchLine{
		{Function: "example.com/pair.AlgorithmOne", File: "/src/pair/pair.go", Line: 24, Text: "if _, err := io.ReadFull(input, window[last:]); err != nil {", PerOp: 1200, Pct: 36}}}
	one.Allocs = &runfmt.BenchProfile{PerOp: 53.3, ObjectsPerOp: 1.33, UserPerOp: 53.3, Lines: []runfmt.BenchLine{
		{Function: "example.com/pair.AlgorithmOne", File: "/src/pair/pair.go", Line: 16, Text: "input := bytes.NewBuffer(data)", PerOp: 48, ObjectsPerOp: 1, Pct: 90},
		{Function: "example.com/pair.AlgorithmOne", File: "/src/pair/pair.go", Line: 17, Text: "window := make([]byte, len(find)) | `x`", PerOp: 5.3, ObjectsPerOp: 0.33, Pct: 10}}}
	two := runfmt.Benchmark{Name: "AlgorithmTwo-2", Package: "example.com/pair", Metrics: []runfmt.BenchMetric{
		{Unit: "ns/op", Summary: sum(1399)}, {Unit: "B/op", Summary: sum(0)}, {Unit: "allocs/op", Summary: sum(0)}},
		Notes: []string{"no allocation profile: it allocates nothing (0 allocs/op)"}}
	return &runfmt.Run{ID: "20260101-000000-bench-pair", Name: "bench-pair", Status: runfmt.StatusComplete, Bench: &runfmt.Bench{
		Pattern: ".", Count: 6, Packages: []runfmt.BenchPackage{{ImportPath: "example.com/pair", GOOS: "linux", GOARCH: "amd64", CPU: "AMD EPYC"}},
		Benchmarks: []runfmt.Benchmark{one, two}, TimedS: 7.6, ProfileS: 1.2, BuildS: 0.9}}
}

func TestBenchText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchText(&b, benchRun(), "runs/x"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"example.com/pair (linux/amd64, AMD EPYC; 6 runs of each",
		"AlgorithmOne-2  3.41µs ± 2%  53 B ± 2%  2 ± 2%     75.2 MB/s ± 2%",
		"your lines 3µs, elsewhere 300ns",
		"1 alloc  90% pair.go:16 pair.AlgorithmOne: input := bytes.NewBuffer(data)",
		"the profile counts 1.33 of the 2 allocs/op timed",
		"note: no allocation profile: it allocates nothing",
		"Run 20260101-000000-bench-pair (complete): runs/x",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bench text lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchMarkdownAndJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchMarkdown(&b, benchRun(), MarkdownOptions{RunsDir: "runs"}); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	if tb := d.table(t, "benchmark"); len(tb.rows) != 2 || len(tb.head) != 5 {
		t.Errorf("benchmark table %+v; want 2 rows of ns/op, B/op, allocs/op, MB/s", tb)
	}
	if !strings.Contains(d.firstHeading(), "2 benchmarks") {
		t.Errorf("heading %q", d.firstHeading())
	}
	b.Reset()
	if err := WriteJUnit(&b, "perflab bench", BenchCases(benchRun()), time.Now(), time.Second); err != nil {
		t.Fatal(err)
	}
	if doc := checkJUnit(t, b.Bytes()); len(doc.Suites[0].Cases) != 2 || *doc.Suites[0].Cases[0].Name != "example.com/pair.AlgorithmOne-2" {
		t.Errorf("JUnit %s; want one case per benchmark", b.String())
	}
}

// benchComparison: AlgorithmTwo went from 0 to 1 allocation and got
// slower; AlgorithmOne did not change.
func benchComparison() *runfmt.BenchComparison {
	s := func(m float64) runfmt.MetricSummary {
		return runfmt.MetricSummary{Median: m, CILow: ptr(m), CIHigh: ptr(m), N: 6}
	}
	return &runfmt.BenchComparison{
		Base: runfmt.BenchSide{Label: "base", Run: "r1", Revision: &runfmt.Revision{Commit: "8a07b5c6077d1234", Ref: "HEAD~1", Subject: "one"}},
		New:  runfmt.BenchSide{Label: "new", Run: "r2", Revision: &runfmt.Revision{Commit: "08d4c6b440cb1234", Ref: "HEAD", Subject: "two"}},
		Rows: []runfmt.BenchDelta{
			{Benchmark: "AlgorithmOne-2", Unit: "ns/op", Better: "lower", Base: s(3410), New: s(3390), DeltaPct: -0.6, Delta: -20, PValue: ptr(0.8)},
			{Benchmark: "AlgorithmTwo-2", Unit: "ns/op", Better: "lower", Base: s(1399), New: s(27980), DeltaPct: 1900, Delta: 26581, PValue: ptr(0.002), Significant: true},
			{Benchmark: "AlgorithmTwo-2", Unit: "allocs/op", Better: "lower", Base: s(0), New: s(1), Delta: 1, PValue: ptr(0.002), Significant: true},
		},
		Thresholds: []runfmt.BenchCheck{
			{Rule: "allocs/op>+0", Benchmark: "AlgorithmTwo-2", Unit: "allocs/op", Delta: 1, Significant: true, Measured: true, Violated: true},
			{Rule: "MB/s<-5%", Unit: "MB/s"},
		},
		Failed:   []string{"allocs/op>+0 (AlgorithmTwo-2)"},
		Warnings: []string{},
		Verdict:  &runfmt.Verdict{Status: runfmt.VerdictFail, Reasons: []string{"AlgorithmTwo-2: allocs/op +1 (significant)"}},
	}
}

func TestBenchCompareText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchCompareText(&b, benchComparison()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"base: 8a07b5c6077d (HEAD~1) one, run r1",
		"~",
		"+1900.0% (worse)  (p=0.002 n=6+6)",
		"allocs/op  0 ± 0%",
		"+1 (worse)",
		"--fail-on: 1 of 2 FAILED",
		"allocs/op>+0  AlgorithmTwo-2  +1            FAILED",
		"Verdict: fail",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchCompareMarkdownAndJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchCompareMarkdown(&b, benchComparison(), MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	if h := d.firstHeading(); !strings.Contains(h, "Regression") || !strings.Contains(h, "AlgorithmTwo-2") {
		t.Errorf("heading %q; want the regression named", h)
	}
	if tb := d.table(t, "rule"); len(tb.rows) != 2 {
		t.Errorf("--fail-on table %+v", tb)
	}
	b.Reset()
	if err := WriteJUnit(&b, "perflab bench", BenchCheckCases(benchComparison()), time.Now(), time.Second); err != nil {
		t.Fatal(err)
	}
	cs := checkJUnit(t, b.Bytes()).Suites[0].Cases
	if len(cs) != 2 || len(cs[0].Failure) != 1 || len(cs[1].Skipped) != 1 {
		t.Errorf("JUnit %s; want the violated rule failed and the unmeasured one skipped", b.String())
	}
}

// unchangedBenchComparison is two revisions of the same code, as bench
// --git HEAD~1..HEAD compares them when the commit did not touch the
// package: ns/op moved within its noise, B/op by one byte in 4 KiB (a
// change the rank test finds in exact counts), allocs/op and MB/s not at
// all though the rank test tells their runs apart.
func unchangedBenchComparison() *runfmt.BenchComparison {
	s := func(m float64) runfmt.MetricSummary {
		return runfmt.MetricSummary{Median: m, CILow: ptr(m), CIHigh: ptr(m), N: 6}
	}
	c := benchComparison()
	c.Rows = []runfmt.BenchDelta{
		{Benchmark: "Search-2", Unit: "ns/op", Better: "lower", Base: s(3410), New: s(3418), DeltaPct: 0.23, Delta: 8, PValue: ptr(0.39)},
		{Benchmark: "Search-2", Unit: "B/op", Better: "lower", Base: s(4105), New: s(4106), DeltaPct: 100.0 / 4105, Delta: 1, PValue: ptr(0.002), Significant: true},
		{Benchmark: "Search-2", Unit: "allocs/op", Better: "lower", Base: s(2), New: s(2), PValue: ptr(0.03), Significant: true},
		{Benchmark: "Search-2", Unit: "MB/s", Better: "higher", Base: s(75.2), New: s(75.2), PValue: ptr(0.04), Significant: true},
	}
	c.Thresholds = []runfmt.BenchCheck{{Rule: "B/op>+5%", Benchmark: "Search-2", Unit: "B/op", DeltaPct: 100.0 / 4105, Delta: 1, Significant: true, Measured: true}}
	c.Failed, c.Verdict = nil, &runfmt.Verdict{Status: runfmt.VerdictPass}
	return c
}

// TestBenchDeltaNeverReadsZero: a change too small for one decimal shows
// its digits, and medians that did not move are neither better nor worse.
func TestBenchDeltaNeverReadsZero(t *testing.T) {
	var got []string
	for _, d := range unchangedBenchComparison().Rows {
		got = append(got, FormatBenchDelta(d))
	}
	if want := []string{"~", "+0.024% (worse)", "0% (same median)", "0% (same median)"}; strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("deltas %q; want %q", got, want)
	}
	for pct, want := range map[float64]string{0: "+0.0%", 12.345: "+12.3%", -0.1: "-0.1%", 0.05: "+0.050%", -0.0004: "-0.00040%", 0.0244: "+0.024%", 1e-9: "+0.0000000010%"} {
		if got := pctChange(pct); got != want {
			t.Errorf("pctChange(%g) = %s; want %s", pct, got, want)
		}
	}
}

// TestBenchCompareMarkdownGolden: the pull request comment of bench --git
// over a commit that did not change the code.
func TestBenchCompareMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchCompareMarkdown(&b, unchangedBenchComparison(), MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, ".md", b.Bytes())
	if h := parseMarkdown(t, b.Bytes()).firstHeading(); h != "✅ Changed: Search-2 B/op +0.024% (worse)" {
		t.Errorf("headline %q", h)
	}
}
