package report

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

var (
	figureRE = regexp.MustCompile(`(?s)<figure class="fig" id="fig-([a-z-]+)" data-x-label="([^"]*)" data-y-label="([^"]*)"( data-empty="1")?>(.*?)</figure>`)
	svgText  = regexp.MustCompile(`(?s)<text[^>]*>([^<]*)</text>`)
	svgPath  = regexp.MustCompile(`<path d="M`)
)

// figures returns the report's figures by ID: their labels and markup.
func figures(page string) map[string][3]string {
	out := map[string][3]string{}
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		out[m[1]] = [3]string{html.UnescapeString(m[2]), html.UnescapeString(m[3]), m[4] + m[5]}
	}
	return out
}

// figureSVG returns the markup of the report's figure id.
func figureSVG(t *testing.T, page, id string) string {
	t.Helper()
	f, ok := figures(page)[id]
	if !ok {
		t.Fatalf("report has no figure %q", id)
	}
	return f[2]
}

// checkFigure checks a drawn chart's structure: an SVG with its axis
// labels and every legend entry as text, tick labels on both axes, and
// drawn lines or shapes.
func checkFigure(t *testing.T, page, id string, legend ...string) {
	t.Helper()
	f, ok := figures(page)[id]
	if !ok {
		t.Errorf("report has no figure %q", id)
		return
	}
	xLabel, yLabel, body := f[0], f[1], f[2]
	if !strings.Contains(body, `<svg class="chart"`) {
		t.Errorf("figure %s has no chart: %.300s", id, body)
		return
	}
	texts := map[string]bool{}
	for _, m := range svgText.FindAllStringSubmatch(body, -1) {
		texts[html.UnescapeString(m[1])] = true
	}
	for _, want := range append([]string{xLabel, yLabel}, legend...) {
		if want != "" && !texts[want] {
			t.Errorf("figure %s: no text %q in its SVG (texts: %v)", id, want, keys(texts))
		}
	}
	if xLabel == "" || yLabel == "" {
		t.Errorf("figure %s: axis labels %q, %q; want both", id, xLabel, yLabel)
	}
	if len(texts) < 6 {
		t.Errorf("figure %s: %d texts, want axis labels, ticks and a legend", id, len(texts))
	}
	if n := len(svgPath.FindAllString(body, -1)); n < 4 {
		t.Errorf("figure %s: %d paths drawn, want axes, grid and data", id, n)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestReportFiguresHaveAxesAndLegends(t *testing.T) {
	r := sampleRun()
	r.GC.Events = []runfmt.GCEvent{{T: 0.5, HeapStartMiB: 12, HeapEndMiB: 13, HeapLiveMiB: 6, PauseMs: 0.3}, {T: 2.2, HeapStartMiB: 12, HeapEndMiB: 12, HeapLiveMiB: 7}}
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkFigure(t, page, "latency-percentiles", "all requests", "90%", "99%")
	checkFigure(t, page, "latency-time", "p50", "p99")
	checkFigure(t, page, "throughput", "requests/s", "errors/s")
	checkFigure(t, page, "cpu", "cores used", "1-core budget", "throttled (%)", "% of periods throttled")
	checkFigure(t, page, "memory", "RSS", "live heap after GC", "a collection", "budget 512.0 MiB")
	// The time per request, against the mean latency.
	r.Time = &runfmt.TimePerRequest{Source: "go-trace", Seconds: 1, Requests: 100, TotalMs: 4.5, Kinds: []runfmt.TimeRow{
		{Kind: "running", MsPerRequest: 1.2}, {Kind: "runnable", MsPerRequest: 0.3}, {Kind: "network", MsPerRequest: 3}}}
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page = b.String()
	checkFigure(t, page, "time", "split", "latency (mean)", "running 1.20 ms", "network 3.00 ms", "mean latency 5.00 ms")
	// Each second of a time chart tells its values on hover.
	lt := figureSVG(t, page, "latency-time")
	if n := strings.Count(lt, "<rect "); n != 4 || !strings.Contains(lt, "<title>2–3 s: p50 4.8 ms, p99 14 ms, max –</title>") {
		t.Errorf("latency over time has %d hover columns; want 4, the third titled with its p50, p99 and max", n)
	}
}

// TestReportEscapesHostileNames gives a run a name, targets, functions and
// source lines made to inject markup: report.html shows them all escaped,
// in its charts' SVG too.
func TestReportEscapesHostileNames(t *testing.T) {
	r := sampleRun()
	evil := `<script>alert(1)</script>`
	r.Name = evil
	r.Load.Targets = []runfmt.TargetStats{{Target: "GET http://127.0.0.1:1/" + evil, Requests: 10, Histogram: r.Load.Histogram}}
	r.Findings[1].Functions = []string{"main." + evil}
	r.Findings[1].Lines = []runfmt.SourceLine{{File: "/src/" + evil + ".go", Line: 3, Text: evil, Context: []string{evil}, ContextStart: 3, Pct: 50}}
	r.Load.SLO = []runfmt.SLOCheck{{Objective: "p99<1ms" + evil, Metric: "p99", Limit: 1, Unit: "ms"}}
	var b strings.Builder
	if err := WriteHTMLWith(&b, r, HTMLOptions{Flame: sampleFlame(t), Crumbs: []Crumb{{Label: evil, Href: "/?q=" + evil}}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if i := strings.Index(page, "<script>alert"); i >= 0 {
		t.Errorf("report.html has a name unescaped: …%s…", page[max(i-100, 0):min(i+60, len(page))])
	}
	if !strings.Contains(figureSVG(t, page, "latency-percentiles"), "GET /%3Cscript%3Ealert%281%29%3C/script%3E") {
		t.Error("the latency chart's legend does not name the hostile target (its path as sent)")
	}
	if !strings.Contains(page, "p99&lt;1ms&lt;script&gt;") {
		t.Error("the SLO line's legend does not show its objective escaped")
	}
}

// TestReportChartsSayWhatIsMissing: a chart without its data is a figure
// that says what is missing, never a blank or an empty frame.
func TestReportChartsSayWhatIsMissing(t *testing.T) {
	r := sampleRun()
	for i := range r.Load.Series {
		p := &r.Load.Series[i]
		p.CPUCores, p.RSSBytes, p.ThrottledPct = nil, nil, nil
	}
	r.GC.Events = nil
	r.Load.Histogram, r.Load.Targets = "", nil
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for id, want := range map[string]string{
		"latency-percentiles": "No latency histogram in this run",
		"cpu":                 "CPU was not sampled in this run",
		"memory":              "memory was not sampled in this run",
	} {
		if f := figureSVG(t, page, id); strings.Contains(f, "<svg") || !strings.Contains(f, want) {
			t.Errorf("figure %s without data: %.300s; want no chart and %q", id, f, want)
		}
	}
	// RSS sampled, and collections counted by an older perflab that kept
	// no GC events: the chart says why it shows none.
	rss := int64(40 << 20)
	for i := range r.Load.Series {
		r.Load.Series[i].RSSBytes = &rss
	}
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if f := figureSVG(t, b.String(), "memory"); !strings.Contains(f, "12 collections in the window (see the verdict), not drawn") {
		t.Errorf("memory chart of a run with collections but no GC events does not say so: %.2000s", f)
	}
}

// TestThroughputOfAPartialLastSecond: a load that ends 0.7 s into its last
// second draws that second's throughput as a rate, not as a 30% drop.
func TestThroughputOfAPartialLastSecond(t *testing.T) {
	r := sampleRun()
	r.Load.DurationS = 3.7
	r.Load.Series = r.Load.Series[:4]
	for i := range r.Load.Series {
		r.Load.Series[i].Requests, r.Load.Series[i].Errors = 100, 0
	}
	r.Load.Series[3].Requests = 70
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if f := figureSVG(t, b.String(), "throughput"); !strings.Contains(f, "<title>3–4 s: 100 requests/s, 0 errors/s</title>") {
		t.Errorf("throughput of the last 0.7 s (70 requests) is not drawn as 100 requests/s: %.3000s", f)
	}
}

// TestPhasesAndScheduleOverTime: each second's phases are drawn stacked,
// their hover adds them up to the second's mean, and a phase that never
// took time (blocked, in the closed model) has no legend entry; an open
// load's throughput shows its schedule beside what completed.
func TestPhasesAndScheduleOverTime(t *testing.T) {
	r := sampleRun()
	for i := range r.Load.Series {
		r.Load.Series[i].Phases = &runfmt.PhaseMeans{Timed: 100, ConnectingMs: 0.5, WaitingMs: 3, ReceivingMs: 1.5}
	}
	r.Load.Series[1].Phases = nil // a second without an answer: a gap
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkFigure(t, page, "phases-time", "connecting", "waiting", "receiving")
	f := figureSVG(t, page, "phases-time")
	if strings.Contains(f, ">blocked<") {
		t.Error("the phases chart has a legend entry for blocked, which took no time")
	}
	if !strings.Contains(f, "<title>2–3 s: blocked 0 ms, connecting 0.5 ms, waiting 3 ms, receiving 1.5 ms = 5 ms over 100 requests</title>") ||
		!strings.Contains(f, "<title>1–2 s: no request answered</title>") {
		t.Errorf("the phases chart's hover does not add each second up: %.3000s", f)
	}
	if tp := figureSVG(t, page, "throughput"); strings.Contains(tp, "scheduled/s") {
		t.Error("a closed load's throughput shows a schedule")
	}

	for i := range r.Load.Series {
		due := 120.0
		r.Load.Series[i].ScheduledPerS = &due
	}
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	checkFigure(t, b.String(), "throughput", "requests/s", "errors/s", "scheduled/s")
	if tp := figureSVG(t, b.String(), "throughput"); !strings.Contains(tp, "120 scheduled/s</title>") {
		t.Errorf("the open load's throughput hover does not say what was scheduled: %.3000s", tp)
	}

	for i := range r.Load.Series {
		r.Load.Series[i].Phases = nil
	}
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if f := figureSVG(t, b.String(), "phases-time"); strings.Contains(f, "<svg") || !strings.Contains(f, "No second holds request phases") {
		t.Errorf("the phases chart of a run without them: %.300s", f)
	}
}
