package ui

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"perflab/internal/labtest"
	"perflab/internal/store"
)

// TestBrowserComparePicksAndPprofViews drives the UI in headless Chromium:
// the "base" and "new" buttons fill the compare form, submitting it opens
// the comparison page, and a profile link opens pprof's flame graph.
func TestBrowserComparePicksAndPprofViews(t *testing.T) {
	chromium := labtest.NeedFile(t, "chromium", "/usr/bin/chromium", "")
	root, ids := realRuns(t)
	srv := httptest.NewServer(New(store.Store{Root: root}, Options{}))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first call starts the browser: no timeout on it, or the timeout
	// would end the browser; the steps after it get one.
	if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("starting Chromium on the UI: %v", err)
	}
	ctx, cancelTimeout := context.WithTimeout(bctx, 60*time.Second)
	defer cancelTimeout()

	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`button[data-side="base"][data-id="`+ids[0]+`"]`)),
		chromedp.Click(chromedp.CSS(`button[data-side="new"][data-id="`+ids[1]+`"]`)),
	)
	if err != nil {
		t.Fatalf("clicking base and new: %v", err)
	}
	base, err1 := chromedp.Run(ctx, chromedp.Value(chromedp.ID("base")))
	new, err2 := chromedp.Run(ctx, chromedp.Value(chromedp.ID("new")))
	if err1 != nil || err2 != nil || base != ids[0] || new != ids[1] {
		t.Errorf("after the clicks the form holds base %q, new %q (%v, %v); want %q and %q", base, new, err1, err2, ids[0], ids[1])
	}
	if err := chromedp.Do(ctx, chromedp.Submit(chromedp.ID("base"))); err != nil {
		t.Fatalf("submitting the compare form: %v", err)
	}
	// The runs page has a table too: the comparison is there once the
	// page's title says so (read again while the browser navigates).
	title := waitTitle(ctx, "perflab compare")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("table"))); err != nil {
		t.Fatalf("the comparison page %q: %v", title, err)
	}
	page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
	if !strings.Contains(title, "perflab compare") || !strings.Contains(page, "CPU per request") {
		t.Errorf("submitting the form led to %q without the comparison table", title)
	}

	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Click(chromedp.CSS(`a[href="runs/`+ids[0]+`/pprof/cpu/flamegraph"]`)),
		chromedp.WaitVisible(chromedp.ID("stack-chart")),
	)
	if err != nil {
		t.Fatalf("pprof flame graph in Chromium: %v", err)
	}
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.innerText.includes("main.search")`)); err != nil || !shown {
		t.Errorf("pprof's flame graph of the buggy run does not show main.search (%v)", err)
	}
}

// waitTitle reads the page's title until it holds want or ctx ends, and
// returns the last title read.
func waitTitle(ctx context.Context, want string) string {
	for {
		title, err := chromedp.Run(ctx, chromedp.Title())
		if err == nil && strings.Contains(title, want) || ctx.Err() != nil {
			return title
		}
		select {
		case <-ctx.Done():
			return title
		case <-time.After(50 * time.Millisecond):
		}
	}
}
