package labtest

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// FitProblems is a script that lists what does not fit the window: the
// page scrolling sideways, an element whose box ends right of the window,
// a figure's caption or note whose text leaves its figure, and text that
// spills out of its own box (a long word or a line that may not wrap) over
// what is beside it. What an element clips (an overflow:auto block, an
// SVG) is measured by the element that clips it.
const FitProblems = `(() => {
  const w = window.innerWidth, out = [];
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "");
  const doc = document.documentElement;
  if (doc.scrollWidth > w) out.push("the page is " + doc.scrollWidth + " px wide in a " + w + " px window");
  const clips = el => { const s = getComputedStyle(el); return s.overflowX !== "visible" || el.tagName.toLowerCase() === "svg"; };
  const walk = el => {
    for (const c of el.children) {
      const r = c.getBoundingClientRect();
      if (r.width > 0 && r.right > w + 0.5) out.push(name(c) + " ends at " + Math.round(r.right) + " px");
      const s = getComputedStyle(c);
      if (s.display !== "inline" && s.overflowX === "visible" && c.clientWidth > 0 && c.scrollWidth > c.clientWidth + 1 && c.tagName.toLowerCase() !== "svg")
        out.push(name(c) + "'s content is " + c.scrollWidth + " px wide in its " + c.clientWidth + " px box");
      if (!clips(c)) walk(c);
    }
  };
  walk(document.body);
  for (const f of document.querySelectorAll("figure")) {
    const fr = f.getBoundingClientRect();
    for (const c of f.querySelectorAll("figcaption, .note")) {
      const rg = document.createRange();
      rg.selectNodeContents(c);
      const r = rg.getBoundingClientRect();
      if (r.left < fr.left - 0.5 || r.right > fr.right + 0.5 || r.top < fr.top - 0.5 || r.bottom > fr.bottom + 0.5)
        out.push(name(f) + ": " + name(c) + " " + JSON.stringify(c.textContent.trim().slice(0, 40)) + " spans " +
          [r.left, r.right].map(Math.round).join("–") + " px, outside its figure's " + [fr.left, fr.right].map(Math.round).join("–") + " px");
    }
  }
  return out.slice(0, 20);
})()`

// CheckFits shows url at each window width (see Width) and checks that
// it fits (see Fits).
func (b *Browser) CheckFits(t testing.TB, url, name string, widths ...int64) {
	t.Helper()
	for _, w := range widths {
		b.Width(t, w)
		b.Open(t, url)
		b.Fits(t, name, w)
	}
}

// Width sets the window to w px wide and 900 px high.
func (b *Browser) Width(t testing.TB, w int64) {
	t.Helper()
	if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(w, 900)); err != nil {
		t.Fatalf("setting the window to %d px: %v", w, err)
	}
}

// Fits fails the test with what of the page shown does not fit its window
// (FitProblems), w px wide. It saves a screenshot of the whole page in the
// test's artifact directory (go test -artifacts keeps them) and logs
// where, for a person to look at.
func (b *Browser) Fits(t testing.TB, name string, w int64) {
	t.Helper()
	problems, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](FitProblems))
	if err != nil {
		t.Fatalf("measuring %s at %d px: %v", name, w, err)
	}
	if len(problems) > 0 {
		t.Errorf("%s does not fit a %d px window:\n\t%s", name, w, strings.Join(problems, "\n\t"))
	}
	shot, err := b.pageShot(t)
	if err != nil {
		t.Errorf("screenshot of %s at %d px: %v", name, w, err)
		return
	}
	path := filepath.Join(t.ArtifactDir(), fmt.Sprintf("%s-%d.png", name, w))
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Errorf("saving a screenshot: %v", err)
		return
	}
	t.Logf("%s at %d px: %s", name, w, path)
}

// pageShot screenshots the whole page as PNG, a window's height at a
// time. Chromium draws a cross-site frame (a sandboxed flame graph) only
// while it is in view, so one screenshot beyond the window would show the
// frames blank; a window that shows a frame waits a moment for it.
func (b *Browser) pageShot(t testing.TB) ([]byte, error) {
	t.Helper()
	type layout struct {
		Height, Window int
		Frames         [][2]int // each frame's top and bottom in the page
	}
	size, err := chromedp.Run(b.Ctx, chromedp.Evaluate[layout](`({Height: document.documentElement.scrollHeight, Window: window.innerHeight,
		Frames: [...document.querySelectorAll("iframe")].map(f => { const r = f.getBoundingClientRect(); return [Math.floor(r.top + scrollY), Math.ceil(r.bottom + scrollY)]; })})`))
	if err != nil {
		return nil, err
	}
	var page *image.RGBA
	for y := 0; y < size.Height; y += size.Window {
		top, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](fmt.Sprintf(`window.scrollTo(0, %d), window.scrollY`, y)))
		if err != nil {
			return nil, err
		}
		for _, f := range size.Frames {
			if f[0] < top+size.Window && f[1] > top {
				b.Settle(t, "the page scrolled to a frame")
				break
			}
		}
		shot, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
		if err != nil {
			return nil, err
		}
		tile, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			return nil, err
		}
		if page == nil {
			page = image.NewRGBA(image.Rect(0, 0, tile.Bounds().Dx(), size.Height))
		}
		draw.Draw(page, tile.Bounds().Add(image.Pt(0, top)), tile, tile.Bounds().Min, draw.Src)
	}
	if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](`window.scrollTo(0, 0), 0`)); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = png.Encode(&out, page)
	return out.Bytes(), err
}

// BlankFill is the least of a page that a printed page (all but the last)
// must fill: a page whose text, images and lines end in its top 30% reads
// as blank. A page may end short of this only before something kept whole
// that is taller than what is left (a chart is about 40% of a page, a
// flame graph 60%).
const BlankFill = 0.3

// Paper sizes in inches.
var (
	Letter = [2]float64{8.5, 11}
	A4     = [2]float64{8.27, 11.69}
)

// CheckPrint prints the page shown to PDF on Letter and A4 paper, as a
// browser's Print does by default (no background graphics), and fails the
// test for each page but the last that is blank (see BlankFill) and for a
// blank last page. It saves the PDFs in the test's artifact directory and
// logs where.
func (b *Browser) CheckPrint(t testing.TB, name string) {
	t.Helper()
	for paper, size := range map[string][2]float64{"letter": Letter, "a4": A4} {
		pdf, err := chromedp.Call(b.Ctx, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: size[0], PaperHeight: size[1]})
		if err != nil {
			t.Fatalf("printing %s on %s paper: %v", name, paper, err)
		}
		path := filepath.Join(t.ArtifactDir(), fmt.Sprintf("%s-%s.pdf", name, paper))
		if err := os.WriteFile(path, pdf.Data, 0o644); err != nil {
			t.Errorf("saving a PDF: %v", err)
		}
		fills, err := PageFill(pdf.Data)
		if err != nil {
			t.Fatalf("%s printed on %s paper: %v", name, paper, err)
		}
		t.Logf("%s printed on %s paper: %d pages, filled %.2f: %s", name, paper, len(fills), fills, path)
		for i, f := range fills {
			if f == 0 || (i < len(fills)-1 && f < BlankFill) {
				t.Errorf("%s printed on %s paper: page %d of %d is blank (what it shows ends %.0f%% down the page)", name, paper, i+1, len(fills), 100*f)
			}
		}
	}
}
