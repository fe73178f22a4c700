package labtest

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser is a headless Chromium tab (Debian's /usr/bin/chromium) that
// records the console errors, failed loads and uncaught exceptions of the
// pages it shows.
type Browser struct {
	// Ctx runs chromedp actions in the tab, bounded to 90 s in all.
	Ctx    context.Context
	mu     sync.Mutex
	errors []string
}

// NewBrowser starts Chromium at 1400×900 for the test (skipping it when
// Chromium is not installed) and ends it when the test ends.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	chromium := NeedFile(t, "chromium", "/usr/bin/chromium", ".ci/setup installs Debian's chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	b := &Browser{}
	// The first call starts the browser: no timeout on it, or the timeout
	// would end the browser; the steps after it get one.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	if err := chromedp.Listen(bctx, b.record); err != nil {
		t.Fatalf("listening to Chromium: %v", err)
	}
	for _, enable := range []cdp.Command[cdp.Empty, cdp.Empty]{log.Enable, runtime.Enable} {
		if _, err := chromedp.Call(bctx, enable, cdp.Empty{}); err != nil {
			t.Fatalf("enabling %s: %v", enable.Method, err)
		}
	}
	ctx, cancelTimeout := context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	b.Ctx = ctx
	return b
}

// Frame returns a context whose actions run in the tab's frame at url
// ("about:srcdoc" for an iframe's srcdoc): a sandboxed or cross-site frame
// is a target of its own, whose document the page's context cannot reach.
// The context ends with the test. A frame the browser has not listed
// within 10 s fails the test.
func (b *Browser) Frame(t testing.TB, url string) context.Context {
	t.Helper()
	var seen []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		infos, err := chromedp.Targets(b.Ctx)
		if err != nil {
			t.Fatalf("listing Chromium's targets: %v", err)
		}
		seen = seen[:0]
		for _, info := range infos {
			if info.Type == "iframe" && info.URL == url {
				ctx, cancel := chromedp.NewContext(b.Ctx, chromedp.WithTargetID(info.TargetID))
				t.Cleanup(cancel)
				return ctx
			}
			seen = append(seen, info.Type+" "+info.URL)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no frame at %s among Chromium's targets %q", url, seen)
		}
	}
}

// record keeps the errors among the tab's events.
func (b *Browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.errors = append(b.errors, fmt.Sprintf("exception: %s at %s:%d", msg, d.URL, d.LineNumber))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			b.errors = append(b.errors, "console.error: "+strings.Join(args, " "))
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			b.errors = append(b.errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// Errors returns and clears the errors seen so far.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	errs := b.errors
	b.errors = nil
	return errs
}

// Open navigates to url, waits for its body, lets its scripts run a
// moment, and reports the errors the page raised.
func (b *Browser) Open(t testing.TB, url string) {
	t.Helper()
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	b.Settle(t, url)
}

// Settle waits a moment for the page's scripts and reports its errors.
func (b *Browser) Settle(t testing.TB, page string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	for _, e := range b.Errors() {
		t.Errorf("%s: %s", page, e)
	}
}

// ChartProblems is a script that lists what is wrong with a page's charts
// (report.html's figure.fig elements): a figure with neither an SVG nor a
// sentence saying why, axis labels (data-x-label, data-y-label) missing
// from its text, too little text for ticks and a legend, or drawn too small.
const ChartProblems = `(() => {
  const out = [];
  const figs = document.querySelectorAll("figure.fig");
  if (!figs.length) out.push("no figures");
  for (const f of figs) {
    if (f.dataset.empty) { const n = f.querySelector(".nodata"); if (!n || !n.textContent.trim()) out.push(f.id + ": empty without a word"); continue; }
    const svg = f.querySelector("svg.chart");
    if (!svg) { out.push(f.id + ": no svg"); continue; }
    const texts = [...svg.querySelectorAll("text")].map(t => t.textContent.trim());
    for (const l of [f.dataset.xLabel, f.dataset.yLabel]) if (!l || !texts.includes(l)) out.push(f.id + ": axis label " + JSON.stringify(l) + " not drawn");
    if (texts.length < 8) out.push(f.id + ": only " + texts.length + " texts (ticks, labels, legend)");
    const r = svg.getBoundingClientRect();
    if (r.width < 400 || r.height < 180) out.push(f.id + ": drawn " + r.width + "x" + r.height);
  }
  return out;
})()`

// Colours the report's charts draw their first series in (Okabe–Ito).
var (
	OkabeItoBlue      = [3]uint8{0x00, 0x72, 0xB2}
	OkabeItoVermilion = [3]uint8{0xD5, 0x5E, 0x00}
)

// CheckColours screenshots the element sel and checks that each colour
// covers at least 100 of its pixels (within a small tolerance): a chart
// whose lines were lost fails, whatever fonts the machine has.
func (b *Browser) CheckColours(t testing.TB, sel string, colours ...[3]uint8) {
	t.Helper()
	shot, err := chromedp.Run(b.Ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Errorf("screenshot of %s: %v", sel, err)
		return
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Errorf("screenshot of %s: %v", sel, err)
		return
	}
	counts := make([]int, len(colours))
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, c := range colours {
				if absDiff(r>>8, c[0])+absDiff(g>>8, c[1])+absDiff(bl>>8, c[2]) < 40 {
					counts[i]++
				}
			}
		}
	}
	for i, c := range colours {
		if counts[i] < 100 {
			t.Errorf("%s: %d pixels of #%02x%02x%02x; want its series drawn in that colour", sel, counts[i], c[0], c[1], c[2])
		}
	}
}

func absDiff(a uint32, b uint8) uint32 {
	if a > uint32(b) {
		return a - uint32(b)
	}
	return uint32(b) - a
}
