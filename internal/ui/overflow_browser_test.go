package ui

import (
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"perflab/internal/labtest"
	"perflab/internal/store"
)

// TestBrowserIndexFitsTheWindow: the runs index at 1280 px wide has no
// horizontal scroll bar, with the names, commands and first findings real
// services give (a long module path, a JVM lambda, a command line with
// many flags).
func TestBrowserIndexFitsTheWindow(t *testing.T) {
	root, _ := fixtureRuns(t)
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	for _, r := range []fixtureRun{
		{id: "20261102-100000-checkout-api-with-a-long-deployment-name", name: "checkout-api-with-a-long-deployment-name", at: t0,
			fn: "github.com/acme-corp/platform/services/checkout/internal/pricing/engine.(*RuleEvaluator).evaluateDiscountRulesForCart", cpuMs: 3, p99: 80},
		{id: "20261102-110000-orders", name: "orders", at: t0.Add(time.Hour),
			fn: "com.acme.orders.OrderService$$Lambda$1423/0x00000008013a4c40.apply(java.lang.Object)", cpuMs: 2, p99: 50},
	} {
		r.write(t, root)
	}
	srv := httptest.NewServer(New(store.Store{Root: root}, Options{}))
	defer srv.Close()
	b := labtest.NewBrowser(t)
	if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	b.Open(t, srv.URL+"/")
	over, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`(() => {
		const w = document.documentElement.clientWidth, out = [];
		if (document.documentElement.scrollWidth > w) out.push("page " + document.documentElement.scrollWidth + " > " + w);
		for (const el of document.querySelectorAll("body *")) {
			const r = el.getBoundingClientRect();
			if (r.right > w + 1 && getComputedStyle(el).position !== "fixed") out.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "") + " ends at " + Math.round(r.right));
		}
		return out.slice(0, 10);
	})()`))
	if err != nil || len(over) > 0 {
		t.Errorf("the index at 1280 px overflows: %s %v", strings.Join(over, "; "), err)
	}
	if shot := os.Getenv("PERFLAB_SCREENSHOT"); shot != "" {
		png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(shot, png, 0o644)
		}
		if err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
}
