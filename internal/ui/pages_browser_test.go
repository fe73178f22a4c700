package ui

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"perflab/internal/labtest"
	"perflab/internal/store"
)

// TestBrowserEveryPage loads each page of the UI in headless Chromium:
// no console errors, breadcrumbs, the report's charts with labelled axes
// and lines drawn in their colours, a finding's link to its flame frame and
// back, the diff flame graph's views and list, and compare from two ticks.
func TestBrowserEveryPage(t *testing.T) {
	root, ids := fixtureRuns(t)
	srv := httptest.NewServer(New(store.Store{Root: root}, Options{}))
	defer srv.Close()
	b := labtest.NewBrowser(t)
	api := ids[4] // the newest run of api

	// Index: tick two groups and compare.
	b.Open(t, srv.URL+"/")
	err := chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(`tbody[data-name="api"] tr.grow input[name="pick"]`)),
		chromedp.Click(chromedp.CSS(`tbody[data-name="worker"] tr.grow input[name="pick"]`)),
		chromedp.Click(chromedp.ID("compare-picked")),
		chromedp.WaitVisible(chromedp.CSS("iframe")),
	)
	if err != nil {
		t.Fatalf("comparing two ticked groups: %v", err)
	}
	b.Settle(t, "compare")
	// The flame graph is a sandboxed frame, which Chromium runs as a
	// target of its own: the test attaches to it to look inside.
	fctx := b.Frame(t, "about:srcdoc")
	changes, err1 := chromedp.Run(fctx, chromedp.Evaluate[int](`document.querySelectorAll("aside#changes li.gain, aside#changes li.loss").length`))
	mode, err2 := chromedp.Run(fctx, chromedp.Evaluate[string](`(() => { document.querySelector('#mode button[data-mode="base"]').click(); return document.body.dataset.mode; })()`))
	if err1 != nil || err2 != nil || changes == 0 || mode != "base" {
		t.Errorf("diff flame graph: %d gains and losses listed, view after clicking base %q (%v, %v)", changes, mode, err1, err2)
	}
	if sandbox, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.querySelector("iframe").getAttribute("sandbox")`)); sandbox != "allow-scripts" {
		t.Errorf("the diff flame graph's frame has sandbox %q; want allow-scripts", sandbox)
	}

	// A run's report: charts, then a finding's flame frame and back.
	b.Open(t, srv.URL+"/runs/"+api+"/")
	problems, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](labtest.ChartProblems))
	if err != nil || len(problems) > 0 {
		t.Errorf("report's charts: %v %v", problems, err)
	}
	empty, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("figure.fig[data-empty]")].map(f => f.id + ": " + f.textContent.trim())`))
	if err != nil || len(empty) > 0 {
		t.Errorf("report's charts not drawn from a run with their data: %v %v", empty, err)
	}
	b.CheckColours(t, "#fig-latency-time", labtest.OkabeItoBlue, labtest.OkabeItoVermilion)
	err = chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(`#finding-1 a.to-flame`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-focus="main.search"]`)),
	)
	focus, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.body.dataset.focus`))
	path, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || focus != "main.search" || !strings.HasSuffix(path, "/runs/"+api+"/flame") {
		t.Fatalf("from the finding to its flame frame: focus %q at %s (%v)", focus, path, err)
	}
	b.Settle(t, "flame")
	err = chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`nav[aria-label="breadcrumbs"] a[href$="runs/%s/"]`, api))),
		chromedp.WaitVisible(chromedp.ID("findings")),
	)
	path, _ = chromedp.Run(b.Ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || path != "/runs/"+api+"/" {
		t.Errorf("back from the flame graph to the run: at %s (%v)", path, err)
	}
	b.Settle(t, "report again")

	// The off-CPU flame graph and pprof's views, under breadcrumbs.
	b.Open(t, srv.URL+"/runs/"+api+"/flame?profile=wall")
	b.Open(t, srv.URL+"/runs/"+api+"/pprof/cpu/flamegraph")
	b.Open(t, srv.URL+"/runs/"+api+"/pprof/cpu/source?f=main.search")
}
