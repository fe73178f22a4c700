package report

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// sampleRun is a run as `perflab run` writes it, with every section of the
// report filled.
func sampleRun() *runfmt.Run {
	r := &runfmt.Run{
		SchemaVersion: runfmt.SchemaVersion, Name: "tolower", ID: "20260101-120000-tolower",
		Started: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), Status: runfmt.StatusComplete,
		Warnings: []string{"no mutex profile <enabled>"},
		Config: runfmt.Config{URL: "http://127.0.0.1:8080/search?q=oak", Command: []string{"./tolower", "-addr", "127.0.0.1:8080"},
			CPUs: 1, MemoryBytes: 512 << 20, WarmupS: 1, Load: map[string]string{"concurrency": "4", "duration": "4s"}},
		Env:      runfmt.Environment{PerflabVersion: "0.1.0-test", GoVersion: "go1.26", Hostname: "box", HostCores: 2, Kernel: "6.1", CgroupVersion: "v1"},
		Target:   &runfmt.TargetSummary{CPUCoresMean: 0.98, CPUCoresMax: 1.02, CPUMsPerRequest: 1.234, RSSMaxBytes: 40 << 20, CPULimitCores: 1, MemoryLimitBytes: 512 << 20, ThrottledPct: 40, Source: "cgroup-v1", CPUBound: true, Verdict: "CPU-bound at its budget"},
		GC:       &runfmt.GCSummary{Count: 12, CPUPct: 8.5, PauseP50Ms: 0.05, PauseP99Ms: 0.4, HeapMaxMiB: 12},
		Profiles: []runfmt.ProfileRef{{Type: "cpu", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz", Seconds: 4, Samples: 390}},
		Hot: []runfmt.HotFunc{
			{Function: "main.search", FlatPct: 1, CumPct: 80, CPUUsPerRequest: 10, CumUsPerRequest: 990, UserCode: true, AttributedUsReq: 985, AttributedSample: "strings.ToLower"},
			{Function: "main.handler.func1", CumPct: 85, CumUsPerRequest: 1050, UserCode: true, AttributedUsReq: 40},
			{Function: "strings.ToLower", FlatPct: 60, CumPct: 75},
		},
		Allocs: []runfmt.AllocFunc{{Function: "main.search", UserCode: true, BytesPerRequest: 300 << 10, ObjectsPerRequest: 5000},
			{Function: "strings.ToLower", BytesPerRequest: 280 << 10, ObjectsPerRequest: 4900}},
		AllocBytesPerRequest: 320 << 10, AllocObjectsPerRequest: 5100,
		Findings: []runfmt.Finding{
			{Kind: runfmt.FindingCPUBound, Advice: runfmt.AdviceCheaperOrMoreCPU, Figures: runfmt.Figures{runfmt.FigShare: 1, runfmt.FigCoresMean: 0.98, runfmt.FigCoresMax: 1.02,
				runfmt.FigCPULimit: 1, runfmt.FigThrottled: 0.4, runfmt.FigCPUPerRequest: 1234, runfmt.FigMaxRPS: 810}},
			{Kind: runfmt.FindingHotUserFunction, Advice: runfmt.AdviceStartHere, Figures: runfmt.Figures{runfmt.FigShare: 0.8, runfmt.FigCPUPerRequest: 985, runfmt.FigOwnShare: 0.01},
				Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: "main.search"},
					{Role: runfmt.RoleEntry, Function: "strings.ToLower", Figures: runfmt.Figures{runfmt.FigShare: 0.79, runfmt.FigCPUPerRequest: 975}}}}},
			{Kind: runfmt.FindingOffCPU, Schema3: runfmt.Schema3{Title: "a finding of schema 3", Detail: "start here <now>"}},
		},
	}
	l := &runfmt.LoadResult{Model: "closed", Requests: 3200, Errors: 3, DurationS: 4.02, RPS: 796,
		Latency: runfmt.Latency{Mean: 5, P50: 4.8, P95: 9, P99: 12.5, Max: 30}}
	for i := range 5 {
		cores, rss, thr := 0.95+0.01*float64(i), int64(38+i)<<20, 35.0+float64(i)
		l.Series = append(l.Series, runfmt.SeriesPoint{T: float64(i), Requests: int64(800 - i), Errors: int64(i % 2), P50: 4.8, P99: 12 + float64(i),
			CPUCores: &cores, RSSBytes: &rss, ThrottledPct: &thr,
			Phases: &runfmt.PhaseMeans{Timed: int64(800 - i), ConnectingMs: 0.1, WaitingMs: 4.2, ReceivingMs: 0.7}})
	}
	l.Series[4].Requests = 10 // the last, partial second
	l.Histogram = testHistogram(3200, 4800)
	r.Load = l
	return r
}

// testHistogram is an encoded HDR histogram of n latencies around
// medianUs microseconds with a tail to 10×.
func testHistogram(n int, medianUs int64) string {
	h := hdr.New(1, 60_000_000, 3)
	for i := range n {
		v := medianUs/2 + int64(i)*medianUs/int64(n)
		if i%100 == 0 {
			v *= 10
		}
		h.RecordValue(v)
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// sampleFlame is a flame page of a small CPU profile.
func sampleFlame(t *testing.T) []byte {
	t.Helper()
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name}
	}
	fs := []*profile.Function{fn(1, "main.search"), fn(2, "strings.ToLower"), fn(3, "main.handler.func1"), fn(4, "net/http.(*conn).serve")}
	locs := make([]*profile.Location, len(fs))
	for i, f := range fs {
		locs[i] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: f, Line: 10}}}
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		Function: fs, Location: locs,
		Sample: []*profile.Sample{
			{Location: []*profile.Location{locs[1], locs[0], locs[2], locs[3]}, Value: []int64{300, 3_000_000_000}},
			{Location: []*profile.Location{locs[0], locs[2], locs[3]}, Value: []int64{20, 200_000_000}},
			{Location: []*profile.Location{locs[3]}, Value: []int64{70, 700_000_000}},
		},
	}
	var b bytes.Buffer
	if err := analysis.WriteFlameHTML(&b, p, analysis.FlameOptions{Title: "cpu", Requests: 3200}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteHTMLContent(t *testing.T) {
	var b bytes.Buffer
	flame := sampleFlame(t)
	if err := writeHTML(&b, sampleRun(), flame); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>perflab: tolower (20260101-120000-tolower)</title>",
		`<span class="badge ok">complete</span>`,
		"796.0 req/s", "4.80 ms", "12.50 ms", "1.23 ms", "0.98 cores", "40%", "8.5%", "300.0 KiB",
		"CPU-bound at its budget",
		`<code>main.search</code>: <span class="fig">80%</span> of CPU, <span class="fig">985.0 µs</span>/request, mostly in <code>strings.ToLower</code>`,
		"985.0 µs CPU/request", "start here &lt;now&gt;", "a finding of schema 3",
		"(mostly strings.ToLower)",
		`<svg class="chart"`, "Throughput", "Latency by percentile", "Latency over time", "CPU against the budget", "Memory and garbage collection", "throttled (%)", "1-core budget",
		`<iframe class="flame"`, `sandbox="allow-scripts"`,
		"concurrency=4 duration=4s", "no mutex profile &lt;enabled&gt;",
		`<a href="profiles/cpu.pb.gz">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Allocations per request are the profile's total, not the rows'
	// sum (a user function's row counts the library code it calls).
	if !strings.Contains(page, `<div class="value">320.0 KiB</div>`) || strings.Contains(page, "580.0 KiB") {
		t.Error("the allocations card does not show the profile's total per request (320.0 KiB)")
	}
	// Only user code is listed as hot.
	if strings.Contains(page, `<td class="fn">strings.ToLower`) {
		t.Error("a standard-library function is listed among the hot user functions")
	}
	// Self-contained: nothing is fetched from the network.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindString(page); m != "" {
		t.Errorf("report refers to the network: %s", m)
	}
	// The flame page is in srcdoc, escaped, and unescapes to the page itself.
	m := regexp.MustCompile(`srcdoc="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no srcdoc")
	}
	if got := html.UnescapeString(m[1]); got != string(flame) {
		t.Errorf("srcdoc unescapes to %d bytes, want the %d-byte flame page", len(got), len(flame))
	}
	// The partial last second is not drawn: the time axis ends at 4 s.
	if tp := figureSVG(t, page, "throughput"); strings.Contains(tp, ">5</text>") || !strings.Contains(tp, ">4</text>") {
		t.Errorf("throughput chart's time axis does not end at 4 s:\n%.2000s", tp)
	}
}

func TestWriteHTMLPartialWithoutData(t *testing.T) {
	r := &runfmt.Run{Name: "x", ID: "id", Status: runfmt.StatusPartial, PartialReason: "the service exited during the warm-up"}
	var b bytes.Buffer
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<span class="badge partial">partial</span>`, "the service exited during the warm-up", "No findings",
		"No load was measured: the run stopped before its window (the service exited during the warm-up)", "No CPU profile"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"<iframe", "<svg", `id="hot"`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("report of a run without data has %q", unwanted)
		}
	}
}

// A report without a CPU profile says why from the run's data: the
// reasons it was degraded, the reason it stopped, or that none was taken.
func TestNoFlameReason(t *testing.T) {
	for _, c := range []struct {
		r    *runfmt.Run
		want string
	}{
		{&runfmt.Run{Status: runfmt.StatusDegraded, Degradations: []runfmt.Degradation{{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: "perf: exit status 1"}}},
			"No CPU profile: the CPU profile failed: perf: exit status 1."},
		{&runfmt.Run{Status: runfmt.StatusPartial, PartialReason: "the service exited"},
			"No CPU profile: the run stopped before its profile was taken (the service exited)."},
		{&runfmt.Run{Status: runfmt.StatusComplete}, "No CPU profile was taken in this run"},
		{&runfmt.Run{Status: runfmt.StatusDegraded, Degradations: []runfmt.Degradation{{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: "perf: exit status 1"}},
			Profiles: []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, File: "cpu.pb.gz"}}},
			"The flame graph could not be drawn from the CPU profile (see the warnings below); cpu.pb.gz still opens"},
	} {
		if got := noFlameReason(c.r); !strings.HasPrefix(got, c.want) {
			t.Errorf("run %s %v: %q; want %q", c.r.Status, c.r.Degradations, got, c.want)
		}
	}
}

func TestPercentileTicks(t *testing.T) {
	var got []string
	for _, tk := range percentileTicks(20000) {
		got = append(got, fmt.Sprintf("%g=%s", tk.Value, tk.Label))
	}
	if want := "1=0% 10=90% 100=99% 1000=99.9% 10000=99.99%"; strings.Join(got, " ") != want {
		t.Errorf("percentileTicks(20000) = %s, want %s", strings.Join(got, " "), want)
	}
}

// TestHTMLInChromium opens report.html as a file in headless Chromium: no
// console errors, every chart with its axis labels, ticks and legend drawn,
// the latency chart's lines in their colours, and a finding's link to the
// embedded flame graph. A screenshot is kept in $PERFLAB_SCREENSHOT when set,
// for a person to look at.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := labtest.NewBrowser(t)
	dir := t.TempDir()
	r := sampleRun()
	r.GC.Events = []runfmt.GCEvent{{T: 0.5, HeapStartMiB: 12, HeapEndMiB: 13, HeapLiveMiB: 6}, {T: 2.5, HeapStartMiB: 13, HeapEndMiB: 13, HeapLiveMiB: 7}}
	var buf bytes.Buffer
	if err := writeHTML(&buf, r, sampleFlame(t)); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Open(t, "file://"+page)
	problems, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](labtest.ChartProblems))
	if err != nil || len(problems) > 0 {
		t.Errorf("charts: %v %v", problems, err)
	}
	// The sample run has the data of every chart: none may stand empty,
	// even with a sentence saying why.
	empty, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("figure.fig[data-empty]")].map(f => f.id + ": " + f.textContent.trim())`))
	if err != nil || len(empty) > 0 {
		t.Errorf("charts not drawn: %v %v", empty, err)
	}
	b.CheckColours(t, "#fig-latency-time", labtest.OkabeItoBlue, labtest.OkabeItoVermilion)
	b.CheckColours(t, "#fig-cpu", labtest.OkabeItoBlue, labtest.OkabeItoVermilion)
	if err := chromedp.Do(b.Ctx, chromedp.Click(chromedp.CSS("#finding-2 a.to-flame"))); err != nil {
		t.Fatalf("clicking a finding's flame link: %v", err)
	}
	b.Settle(t, "after the flame link")
	hash, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`location.hash`))
	if hash != "#flame" {
		t.Errorf("the finding's flame link led to %q, want #flame", hash)
	}
	if shot := os.Getenv("PERFLAB_SCREENSHOT"); shot != "" {
		png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(90))
		if err == nil {
			err = os.WriteFile(shot, png, 0o644)
		}
		if err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
}

// TestHTMLPrintsFlameGraphs: report.html printed to PDF (as a browser's
// Print does) holds its CPU flame graph drawn: the canvas in its frame
// comes out as an image in the PDF.
func TestHTMLPrintsFlameGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := labtest.NewBrowser(t)
	var buf bytes.Buffer
	if err := writeHTML(&buf, sampleRun(), sampleFlame(t)); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Open(t, "file://"+page)
	yes := true
	pdf, err := chromedp.Call(b.Ctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{PrintBackground: &yes})
	if err != nil {
		t.Fatalf("printing to PDF: %v", err)
	}
	if n := bytes.Count(pdf.Data, []byte("/Subtype /Image")); n < 1 {
		t.Errorf("the printed report holds %d images; want the flame graph's canvas (%d bytes of PDF)", n, len(pdf.Data))
	}
}
