package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"perflab/internal/runfmt"
)

// mdDoc is a markdown summary parsed by a real GFM parser (goldmark, the
// CommonMark parser with GitHub's table extension).
type mdDoc struct {
	src    []byte
	root   ast.Node
	tables []mdTableShape
}

// mdTableShape is a parsed table: its header and rows, as plain text.
type mdTableShape struct {
	head []string
	rows [][]string
	// code holds the text of every code span in the table's cells.
	code []string
}

func parseMarkdown(t *testing.T, src []byte) *mdDoc {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	d := &mdDoc{src: src, root: md.Parser().Parse(text.NewReader(src))}
	err := ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		tbl, ok := n.(*extast.Table)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var shape mdTableShape
		for row := tbl.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
				cells = append(cells, nodeText(cell, src))
				_ = ast.Walk(cell, func(c ast.Node, in bool) (ast.WalkStatus, error) {
					if cs, ok := c.(*ast.CodeSpan); ok && in {
						shape.code = append(shape.code, nodeText(cs, src))
					}
					return ast.WalkContinue, nil
				})
			}
			if _, isHead := row.(*extast.TableHeader); isHead {
				shape.head = cells
			} else {
				shape.rows = append(shape.rows, cells)
			}
		}
		d.tables = append(d.tables, shape)
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// nodeText is the text a node renders, without markup.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			// Backslash escapes stay in the segment until rendering.
			b.Write(util.UnescapePunctuations(c.Segment.Value(src)))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// firstHeading is the text of the document's first heading.
func (d *mdDoc) firstHeading() string {
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			return nodeText(h, d.src)
		}
	}
	return ""
}

// checkTables fails when a table's rows do not have its header's cells.
func (d *mdDoc) checkTables(t *testing.T) {
	t.Helper()
	for i, tb := range d.tables {
		for _, r := range tb.rows {
			if len(r) != len(tb.head) {
				t.Errorf("table %d (%q): row %q has %d cells, header %d", i, tb.head, r, len(r), len(tb.head))
			}
		}
	}
}

func (d *mdDoc) table(t *testing.T, firstHead string) mdTableShape {
	t.Helper()
	for _, tb := range d.tables {
		if len(tb.head) > 0 && tb.head[0] == firstHead {
			return tb
		}
	}
	t.Fatalf("no table with header %q in:\n%s", firstHead, d.src)
	return mdTableShape{}
}

// failedComparison is sampleComparison swapped into a regression, with
// function names that markdown would otherwise break: a pipe, brackets,
// backticks, stars and underscores.
func failedComparison() *runfmt.Comparison {
	c := sampleComparison()
	c.Thresholds[0] = runfmt.ThresholdCheck{Rule: "cpu_per_request>+5%", Metric: "cpu_per_request", DeltaPct: 287.1, Significant: true, Measured: true, Violated: true}
	c.Failed = []string{"cpu_per_request>+5%"}
	c.Metrics[2].DeltaPct, c.Metrics[2].Base, c.Metrics[2].New = 287.1, c.Metrics[2].New, c.Metrics[2].Base
	c.Verdict = &runfmt.Verdict{Status: runfmt.VerdictFail, Reasons: []string{"cpu_per_request>+5%: +287.1% (significant)"}}
	c.Functions = append([]runfmt.FunctionDelta{
		{Function: "main.(*server).search|lower", Profile: "cpu", Unit: "us", UserCode: true, Base: 410, New: 2200, Delta: 1790, DeltaPct: fp(436), PValue: fp(0.0079), Significant: true},
		{Function: "main.Map[go.shape.*_T]`x`", Profile: "cpu", Unit: "us", UserCode: true, Base: 10, New: 20, Delta: 10, DeltaPct: fp(100), PValue: fp(0.3)},
	}, c.Functions...)
	c.Base.Revision = &runfmt.Revision{Side: "base", Ref: "HEAD~1", Commit: "732834ca4a97aaaabbbbccccddddeeeeffff0000", Subject: "checksum *service* | v1"}
	return c
}

// TestCompareMarkdownRenders: the summary parses as GFM with the verdict
// first, a metric table of one row per metric with benchstat's "~", and
// function names kept whole in code spans.
func TestCompareMarkdownRenders(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, failedComparison(), MarkdownOptions{RunsDir: "perflab-runs", JobURL: "https://ci.example/run/1"}); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	h := d.firstHeading()
	for _, want := range []string{"❌", "Regression", "cpu_per_request>+5%", "CPU per request ×3.87 (worse)", "main.(*server).search|lower"} {
		if !strings.Contains(h, want) {
			t.Errorf("verdict line %q lacks %q", h, want)
		}
	}
	m := d.table(t, "metric")
	if len(m.head) != 5 || m.head[1] != "base" || m.head[2] != "new" || len(m.rows) != len(sampleComparison().Metrics) {
		t.Errorf("metric table: header %q, %d rows; want 5 columns and a row per metric", m.head, len(m.rows))
	}
	if m.rows[4][0] != "GC share of CPU" || m.rows[4][3] != "~" || m.rows[5][3] != "too few runs" {
		t.Errorf("metric rows %q; want ~ for a change that is not significant and \"too few runs\" where none can be", m.rows)
	}
	f := d.table(t, "function")
	wantCode := []string{"main.(*server).search|lower", "main.Map[go.shape.*_T]`x`"}
	for _, w := range wantCode {
		found := false
		for _, c := range f.code {
			found = found || strings.TrimSpace(c) == w
		}
		if !found {
			t.Errorf("function table's code spans %q lack %q", f.code, w)
		}
	}
	th := d.table(t, "rule")
	if len(th.rows) != 3 || !strings.Contains(th.rows[0][2], "failed") {
		t.Errorf("--fail-on table %q; want 3 rules, the first failed", th.rows)
	}
	if !strings.Contains(b.String(), "(https://ci.example/run/1)") || !strings.Contains(b.String(), "<details>") {
		t.Errorf("no link to the CI job or no folded warnings:\n%s", b.String())
	}
}

func TestCompareMarkdownVerdicts(t *testing.T) {
	for _, tc := range []struct {
		verdict *runfmt.Verdict
		want    string
	}{
		{&runfmt.Verdict{Status: runfmt.VerdictPass}, "✅ Better: requests/s ×3.80, latency p99 -70.1%, CPU per request -74.2%, 1 more — within cpu_per_request>+5%, gc_pct>+1%, rps<-5%"},
		// A noisy machine leaves the outcome as the rules found it, with
		// a warning; only a rule too few runs could check is not
		// conclusive.
		{&runfmt.Verdict{Status: runfmt.VerdictWarn, Reasons: []string{"5 of 5 base runs were measured on a noisy machine"}}, "✅ Better: requests/s ×3.80, latency p99 -70.1%, CPU per request -74.2%, 1 more — within cpu_per_request>+5%, gc_pct>+1%, rps<-5% · ⚠️ 5 of 5 base runs were measured on a noisy machine"},
		{&runfmt.Verdict{Status: runfmt.VerdictWarn, Reasons: []string{"rss_max>+5%: too few runs to tell"}}, "⚠️ Not conclusive: rss_max>+5%: too few runs to tell"},
	} {
		c := sampleComparison()
		c.Verdict = tc.verdict
		if strings.Contains(tc.want, "too few") {
			c.Thresholds = append(c.Thresholds, runfmt.ThresholdCheck{Rule: "rss_max>+5%", Metric: "rss_max", Measured: true, TooFew: true, DeltaPct: 3.3})
		}
		var b bytes.Buffer
		if err := WriteCompareMarkdown(&b, c, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		if h := parseMarkdown(t, b.Bytes()).firstHeading(); !strings.HasPrefix(h, tc.want) {
			t.Errorf("verdict %q; want it to start with %q", h, tc.want)
		}
	}
	c := sampleComparison()
	c.Thresholds, c.Verdict = nil, nil
	for i := range c.Metrics {
		c.Metrics[i].Significant = false
	}
	var b bytes.Buffer
	_ = WriteCompareMarkdown(&b, c, MarkdownOptions{})
	if h := parseMarkdown(t, b.Bytes()).firstHeading(); h != "✅ No significant change" {
		t.Errorf("verdict %q; want ✅ No significant change", h)
	}
}

// TestCompareMarkdownNamesGuardedMetrics: a comparison where every
// metric got better names the metrics its --fail-on rules guard, and the
// CPU per request, in its headline whatever their place in the table,
// and folds only the others into "N more".
func TestCompareMarkdownNamesGuardedMetrics(t *testing.T) {
	c := sampleComparison()
	p := c.Metrics[1]
	p50, p90 := p, p
	p50.Name, p50.DeltaPct = runfmt.MetricP50, -40.3
	p90.Name, p90.DeltaPct = runfmt.MetricP90, -52.8
	c.Metrics = append([]runfmt.MetricComparison{c.Metrics[0], p50, p90}, c.Metrics[1:]...)
	for _, tc := range []struct {
		rules []runfmt.MetricName
		want  string
	}{
		{nil, "✅ Better: requests/s ×3.80, latency p50 -40.3%, CPU per request -74.2%, 3 more"},
		{[]runfmt.MetricName{runfmt.MetricCPU}, "✅ Better: requests/s ×3.80, latency p50 -40.3%, CPU per request -74.2%, 3 more — within cpu_per_request>+5%"},
		{[]runfmt.MetricName{runfmt.MetricAllocs, runfmt.MetricP99}, "✅ Better: latency p99 -70.1%, CPU per request -74.2%, allocs per request -98.5%, 3 more — within allocs_per_request>+5%, p99>+5%"},
	} {
		c.Thresholds = nil
		for _, m := range tc.rules {
			c.Thresholds = append(c.Thresholds, runfmt.ThresholdCheck{Rule: string(m) + ">+5%", Metric: m, DeltaPct: -50, Significant: true, Measured: true})
		}
		var b bytes.Buffer
		if err := WriteCompareMarkdown(&b, c, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		d := parseMarkdown(t, b.Bytes())
		if h := d.firstHeading(); h != tc.want {
			t.Errorf("rules on %q: headline\n%s\nwant\n%s", tc.rules, h, tc.want)
		}
		if rows := d.table(t, "metric").rows; len(rows) != len(c.Metrics) {
			t.Errorf("rules on %q: the metric table has %d rows; want all %d", tc.rules, len(rows), len(c.Metrics))
		}
	}
}

// TestCompareMarkdownLimit: a comparison with thousands of long function
// names and warnings still fits a pull request comment, and still parses.
func TestCompareMarkdownLimit(t *testing.T) {
	c := failedComparison()
	long := strings.Repeat("veryLongGenericInstantiation[go.shape.struct{...}]", 8)
	for i := range 3000 {
		c.Functions = append(c.Functions, runfmt.FunctionDelta{Function: fmt.Sprintf("pkg%d.%s", i, long), Profile: "cpu", Unit: "us", Base: 1, New: 2, Delta: 1, DeltaPct: fp(100)})
		c.Warnings = append(c.Warnings, fmt.Sprintf("warning %d: %s", i, long))
	}
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, c, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > MarkdownLimit {
		t.Fatalf("markdown is %d bytes; want at most %d", b.Len(), MarkdownLimit)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	if !strings.Contains(d.firstHeading(), "❌") || len(d.table(t, "metric").rows) != len(c.Metrics) {
		t.Errorf("the cut summary lost its verdict or metric table")
	}
	if b := []byte(WriteCompareMarkdownString(t, c, 2000)); len(b) > 2000 || !bytes.Contains(b, []byte("cut at")) {
		t.Errorf("a 2000-byte limit gave %d bytes without saying it cut: %s", len(b), b)
	}
}

func WriteCompareMarkdownString(t *testing.T, c *runfmt.Comparison, limit int) string {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, c, MarkdownOptions{Limit: limit}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSweepMarkdown(t *testing.T) {
	s := sampleComparison()
	s.Base.Label, s.New.Label = "GOGC=100", "GOGC=400"
	c := &runfmt.Comparison{Env: "GOGC", Values: []string{"100", "400"}, Comparisons: []runfmt.Comparison{*s},
		Base: s.Base, New: s.New, Metrics: s.Metrics, Verdict: &runfmt.Verdict{Status: runfmt.VerdictPass}}
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, c, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	tb := d.table(t, "GOGC")
	if len(tb.rows) != 2 || tb.rows[0][0] != "100" || tb.rows[1][0] != "400" || len(tb.head) != 2+2*len(sweepMetrics) {
		t.Errorf("sweep table %q %q; want one row per value", tb.head, tb.rows)
	}
}

func TestRunMarkdown(t *testing.T) {
	r := &runfmt.Run{ID: "20260102-030405-svc", Name: "svc", Status: runfmt.StatusComplete,
		Load:     &runfmt.LoadResult{Requests: 5000, DurationS: 10, RPS: 500, SLO: []runfmt.SLOCheck{{Objective: "p99<100ms", Metric: "p99", Limit: 100, Measured: 127.3, Unit: "ms"}, {Objective: "errors<1%", Metric: "errors", Limit: 1, Unit: "%", Pass: true}}},
		Target:   &runfmt.TargetSummary{CPUMsPerRequest: 1.81, CPUCoresMean: 0.9, CPULimitCores: 1, RSSMaxBytes: 30 << 20},
		Hot:      []runfmt.HotFunc{{Function: "main.search|x", UserCode: true, CPUUsPerRequest: 900, FlatPct: 50}},
		Findings: []runfmt.Finding{{Kind: runfmt.FindingFormatting, Schema3: runfmt.Schema3{Title: "strings.ToLower under main.search", Functions: []string{"main.search"}}}},
	}
	var b bytes.Buffer
	if err := WriteRunMarkdown(&b, r, "perflab-runs/20260102-030405-svc", MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, b.Bytes())
	d.checkTables(t)
	if h := d.firstHeading(); !strings.HasPrefix(h, "❌") || !strings.Contains(h, "SLO missed: p99=127.30 ms (want p99<100ms)") {
		t.Errorf("verdict %q; want ❌ with the missed objective", h)
	}
	if slo := d.table(t, "objective"); len(slo.rows) != 2 {
		t.Errorf("SLO table rows %q; want 2", slo.rows)
	}
	if hot := d.table(t, "function"); len(hot.code) != 1 || hot.code[0] != "main.search|x" {
		t.Errorf("hot table code %q; want main.search|x", hot.code)
	}
	r.Load.SLO = nil
	r.Quality = &runfmt.Quality{Verdict: "noisy", Causes: []runfmt.NoiseCause{runfmt.NoiseOtherProcesses}, HostCores: 2, OtherCores: 1.02}
	b.Reset()
	_ = WriteRunMarkdown(&b, r, "", MarkdownOptions{})
	if h := parseMarkdown(t, b.Bytes()).firstHeading(); !strings.HasPrefix(h, "⚠️") || !strings.Contains(h, "noisy measurement") {
		t.Errorf("noisy run's verdict %q; want ⚠️ noisy measurement", h)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for _, s := range []string{"a|b", "*x*", "_y_", "<b>html</b>", "[link](x)", "`code`", "# head", "- item", "&amp;", "~~s~~", "a\nb"} {
		src := []byte("| c |\n| :-- |\n| " + mdText(s) + " |\n\n" + mdText(s) + "\n")
		d := parseMarkdown(t, src)
		want := strings.Join(strings.Fields(s), " ")
		if len(d.tables) != 1 || len(d.tables[0].rows) != 1 || d.tables[0].rows[0][0] != want {
			t.Errorf("mdText(%q) in a cell renders %q; want it literally", s, d.tables)
		}
	}
}
