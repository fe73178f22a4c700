package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// longModule stands for the demo's package path in fitRun: a service's
// functions are named by its module path, and a company's is long.
const longModule = "github.com/acme-corp/platform/services/checkout/internal/pricing/engine."

// fitRun is the demo's stored run (five findings, four endpoints, forty hot
// functions) with its functions under a long module path, and with the
// per-second series, latency histograms and GC events the fixture leaves
// out, so every chart is drawn.
func fitRun(t *testing.T) *runfmt.Run {
	t.Helper()
	js, err := os.ReadFile("testdata/page/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	js = bytes.ReplaceAll(js, []byte("perflab/internal/demo."), []byte(longModule))
	r, err := runfmt.Read(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	l := r.Load
	for i := range 10 {
		cores, rss, thr := 0.85+0.01*float64(i%3), int64(60+i)<<20, 20.0+float64(i)
		l.Series = append(l.Series, runfmt.SeriesPoint{T: float64(i), Requests: int64(l.RPS), P50: l.Latency.P50, P99: l.Latency.P99, Max: l.Latency.Max,
			CPUCores: &cores, RSSBytes: &rss, ThrottledPct: &thr,
			Phases: &runfmt.PhaseMeans{Timed: int64(l.RPS), WaitingMs: l.Latency.Mean * 0.9, ReceivingMs: l.Latency.Mean * 0.1}})
	}
	l.Histogram = testHistogram(int(l.Requests), int64(l.Latency.P50*1000))
	for i := range l.Targets {
		tg := &l.Targets[i]
		tg.Histogram = testHistogram(int(tg.Requests), int64(tg.Latency.P50*1000))
	}
	for i := range r.GC.Count {
		r.GC.Events = append(r.GC.Events, runfmt.GCEvent{T: 10 * float64(i) / float64(r.GC.Count), HeapStartMiB: 60, HeapEndMiB: 88, HeapLiveMiB: 30})
	}
	return r
}

// fitProfile is a CPU profile of r's hot functions: each user function
// under the server's handler, calling what its CPU was charged to, and each
// other function at its own share.
func fitProfile(r *runfmt.Run) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000, DurationNanos: 10e9,
	}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		id := uint64(len(locs) + 1)
		fn := &profile.Function{ID: id, Name: name, SystemName: name, Filename: "/src/" + name + ".go"}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: fn, Line: 42}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	requests := float64(r.Load.Requests)
	add := func(us float64, stack ...string) {
		ns := int64(us * 1000 * requests)
		var s []*profile.Location
		for i := len(stack) - 1; i >= 0; i-- {
			s = append(s, loc(stack[i]))
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: s, Value: []int64{ns / p.Period, ns}})
	}
	server := []string{"runtime.goexit", "net/http.(*conn).serve", "net/http.serverHandler.ServeHTTP", "net/http.(*ServeMux).ServeHTTP"}
	for _, h := range r.Hot {
		switch {
		case h.UserCode && h.AttributedSample != "":
			add(h.AttributedUsReq, append(server, h.Function, h.AttributedSample)...)
			add(h.CPUUsPerRequest, append(server, h.Function)...)
		case h.UserCode:
			add(h.CPUUsPerRequest, append(server, h.Function)...)
		default:
			add(h.CPUUsPerRequest, "runtime.goexit", h.Function)
		}
	}
	return p
}

// TestHTMLFitsWidths shows report.html of a run with many findings and long
// function names in headless Chromium at 1,280 and 1,920 px: nothing wider
// than the window, no sideways scroll, every chart's caption and note
// inside its figure; and printed on Letter and A4 paper, no blank page.
// Screenshots and PDFs are kept with go test -artifacts.
func TestHTMLFitsWidths(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	r := fitRun(t)
	prof := fitProfile(r)
	var cpu, off bytes.Buffer
	if err := analysis.WriteFlameHTML(&cpu, prof, analysis.FlameOptions{Title: "cpu", Requests: r.Load.Requests}); err != nil {
		t.Fatal(err)
	}
	if err := analysis.WriteFlameHTML(&off, prof, analysis.FlameOptions{Title: "off-CPU", Requests: r.Load.Requests}); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteHTMLFlames(&page, r, Flames{CPU: cpu.Bytes(), OffCPU: off.Bytes()}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b := labtest.NewBrowser(t)
	b.CheckFits(t, "file://"+path, "report", 1280, 1920)
	b.CheckPrint(t, "report")
}
