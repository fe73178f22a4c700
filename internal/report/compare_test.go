package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

func fp(v float64) *float64 { return &v }

// sampleComparison is a fix confirmed by 5 runs a side, with a --fail-on
// rule that the swapped comparison would fail.
func sampleComparison() *runfmt.Comparison {
	sum := func(med, lo, hi float64, n int) runfmt.MetricSummary {
		return runfmt.MetricSummary{Median: med, CILow: fp(lo), CIHigh: fp(hi), N: n}
	}
	return &runfmt.Comparison{
		IntervalMinRuns: stats.MinRunsForInterval,
		Base:            runfmt.Group{Label: "base", Runs: []string{"r1-base", "r2-base", "r3-base", "r4-base", "r5-base"}, Requests: 4012},
		New:             runfmt.Group{Label: "new", Runs: []string{"r1-new", "r2-new", "r3-new", "r4-new", "r5-new"}, Requests: 15230},
		Metrics: []runfmt.MetricComparison{
			{Name: "rps", Unit: "req/s", Better: "higher", Base: sum(401.2, 398, 405, 5), New: sum(1523, 1490, 1540, 5), DeltaPct: 279.6, PValue: fp(0.0079), Significant: true},
			{Name: "p99", Unit: "ms", Better: "lower", Base: sum(20.4, 18, 25, 5), New: sum(6.1, 5.5, 7, 5), DeltaPct: -70.1, PValue: fp(0.0079), Significant: true},
			{Name: "cpu_per_request", Unit: "ms", Better: "lower", Base: sum(2.4, 2.38, 2.47, 5), New: sum(0.62, 0.61, 0.64, 5), DeltaPct: -74.2, PValue: fp(0.0079), Significant: true},
			{Name: "allocs_per_request", Unit: "B", Better: "lower", Base: sum(4160, 4150, 4170, 5), New: sum(64, 64, 64, 5), DeltaPct: -98.5, PValue: fp(0.0079), Significant: true},
			{Name: "gc_pct", Unit: "%", Better: "lower", Base: sum(5, 4.5, 5.6, 5), New: sum(5.1, 4.4, 5.5, 5), DeltaPct: 2, PValue: fp(0.69), Significant: false},
			{Name: "rss_max", Unit: "B", Better: "lower", Base: runfmt.MetricSummary{Median: 30 << 20, N: 2}, New: runfmt.MetricSummary{Median: 31 << 20, N: 2}, DeltaPct: 3.3, TooFew: true},
		},
		Functions: []runfmt.FunctionDelta{
			{Function: "main.search", Profile: "cpu", Unit: "us", UserCode: true, Base: 2200, New: 410, Delta: -1790, DeltaPct: fp(-81.4), PValue: fp(0.0079), Significant: true},
			{Function: "main.searchLowered", Profile: "cpu", Unit: "us", UserCode: true, Base: 0, New: 35, Delta: 35, PValue: fp(0.0079), Significant: true},
			{Function: "main.handler", Profile: "cpu", Unit: "us", UserCode: true, Base: 41, New: 40, Delta: -1, DeltaPct: fp(-2.4), PValue: fp(0.55)},
			{Function: "strings.ToLower", Profile: "cpu", Unit: "us", Base: 1800, New: 0, Delta: -1800, DeltaPct: fp(-100), PValue: fp(0.0079), Significant: true},
			{Function: "main.search", Profile: "allocs", Unit: "B", UserCode: true, Base: 4096, New: 0, Delta: -4096, DeltaPct: fp(-100), PValue: fp(0.0079), Significant: true},
		},
		Warnings: []string{"base: need >= 6 samples for confidence interval at level 0.95", "command differs between runs: ./svc -mode=buggy vs ./svc -mode=fixed"},
		Thresholds: []runfmt.ThresholdCheck{
			{Rule: "cpu_per_request>+5%", Metric: "cpu_per_request", DeltaPct: -74.2, Significant: true, Measured: true},
			{Rule: "gc_pct>+1%", Metric: "gc_pct", DeltaPct: 2, Measured: true},
			{Rule: "rps<-5%", Metric: "rps", DeltaPct: 279.6, Significant: true, Measured: true},
		},
	}
}

func TestWriteCompareTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareText(&b, sampleComparison()); err != nil {
		t.Fatal(err)
	}
	golden(t, ".txt", b.Bytes())
}

func TestWriteCompareTextFailed(t *testing.T) {
	c := sampleComparison()
	c.Thresholds[0] = runfmt.ThresholdCheck{Rule: "cpu_per_request>+5%", Metric: "cpu_per_request", DeltaPct: 287.1, Significant: true, Measured: true, Violated: true}
	c.Failed = []string{"cpu_per_request>+5%"}
	var b bytes.Buffer
	if err := WriteCompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--fail-on: 1 of 3 FAILED") {
		t.Errorf("output lacks the verdict line:\n%s", b.String())
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "cpu_per_request>+5%" && (f[1] != "+287.1%" || f[len(f)-1] != "FAILED") {
			t.Errorf("fail-on row %q; want the change and FAILED", line)
		}
	}
}

func TestFormatSummary(t *testing.T) {
	for _, tc := range []struct {
		s    runfmt.MetricSummary
		unit string
		want string
	}{
		{runfmt.MetricSummary{Median: 2.4, CILow: fp(2.3), CIHigh: fp(2.46), N: 6}, "ms", "2.40 ms ± 4%"},
		{runfmt.MetricSummary{Median: 1523, N: 1}, "req/s", "1523"},
		{runfmt.MetricSummary{Median: 0, CILow: fp(0), CIHigh: fp(0), N: 6}, "%", "0.0% ± 0%"},
		{runfmt.MetricSummary{Median: 3 << 20, CILow: fp(3 << 20), CIHigh: fp(3 << 20), N: 6}, "B", "3.0 MiB ± 0%"},
		{runfmt.MetricSummary{Median: 0.0123, CILow: fp(0.012), CIHigh: fp(0.013), N: 6}, "ms", "0.0123 ms ± 6%"},
	} {
		if got := FormatSummary(tc.s, tc.unit); got != tc.want {
			t.Errorf("FormatSummary(%+v, %q) = %q; want %q", tc.s, tc.unit, got, tc.want)
		}
	}
}

func TestWriteCompareHTML(t *testing.T) {
	var b bytes.Buffer
	flame := []byte("<!DOCTYPE html>\n<html><body>the differential flame graph</body></html>\n")
	if err := WriteCompareHTML(&b, sampleComparison(), flame); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<td>CPU per request</td>", "-74.2% (better)", "main.search", "<iframe", `sandbox="allow-scripts"`, "srcdoc=\"&lt;!DOCTYPE html&gt;", "Warnings"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://"} {
		if strings.Contains(page, "src=\""+bad) || strings.Contains(page, "href=\""+bad) {
			t.Errorf("page loads %s resources: it must work offline", bad)
		}
	}
	b.Reset()
	if err := WriteCompareHTML(&b, sampleComparison(), nil); err != nil || strings.Contains(b.String(), "<iframe") || !strings.Contains(b.String(), "Not drawn: a CPU profile is needed on both sides") {
		t.Errorf("without profiles: err %v, iframe present %v; want a page that says why it has no flame graph", err, strings.Contains(b.String(), "<iframe"))
	}
}

func tinyCPU(ns int64) *profile.Profile {
	fn := &profile.Function{ID: 1, Name: "main.search", Filename: "/src/main.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn}}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{ns}}},
		Location:   []*profile.Location{loc}, Function: []*profile.Function{fn},
	}
}

func TestWriteSweepText(t *testing.T) {
	c := sampleComparison()
	s := &runfmt.Comparison{Env: "GOGC", Values: []string{"100", "400"}, Comparisons: []runfmt.Comparison{*c}}
	var b bytes.Buffer
	if err := WriteSweepText(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, ".txt", b.Bytes())
}
