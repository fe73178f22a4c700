package ui

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"perflab/internal/labtest"
	"perflab/internal/store"
)

// TestBrowserPagesFitTheWindow: the runs index (with every service's runs
// listed, too), a run's report and a
// comparison at 1,280 and 1,920 px wide have no horizontal scroll bar and
// nothing wider than the window, with the names, commands and first
// findings real services give (a long module path, a JVM lambda, a command
// line with many flags). Screenshots are kept with go test -artifacts.
func TestBrowserPagesFitTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser over three pages at two widths")
	}
	root, _ := fixtureRuns(t)
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	long := "20261102-100000-checkout-api-with-a-long-deployment-name"
	for _, r := range []fixtureRun{
		{id: long, name: "checkout-api-with-a-long-deployment-name", at: t0,
			fn: "github.com/acme-corp/platform/services/checkout/internal/pricing/engine.(*RuleEvaluator).evaluateDiscountRulesForCart", cpuMs: 3, p99: 80},
		{id: "20261102-110000-orders", name: "orders", at: t0.Add(time.Hour),
			fn: "com.acme.orders.OrderService$$Lambda$1423/0x00000008013a4c40.apply(java.lang.Object)", cpuMs: 2, p99: 50},
	} {
		r.write(t, root)
	}
	srv := httptest.NewServer(New(store.Store{Root: root}, Options{}))
	defer srv.Close()
	b := labtest.NewBrowser(t)
	b.CheckFits(t, srv.URL+"/", "index", 1280, 1920)
	for _, w := range []int64{1280, 1920} {
		b.Width(t, w)
		b.Open(t, srv.URL+"/")
		if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](`(() => { const ds = document.querySelectorAll("details"); ds.forEach(d => d.open = true); return ds.length; })()`)); err != nil {
			t.Fatalf("opening the index's lists of runs: %v", err)
		}
		b.Fits(t, "index-open", w)
	}
	b.CheckFits(t, srv.URL+"/runs/"+long+"/", "run", 1280, 1920)
	b.CheckFits(t, srv.URL+"/compare?base="+long+"&new=20261102-110000-orders", "compare", 1280, 1920)
}
