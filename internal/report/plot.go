package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The report's charts are drawn here, in Go, with gonum.org/v1/plot, and
// inlined into the page as SVG. A maintained plotting library gives the
// axes, ticks, log scales and legends that hand-written SVG had to grow one
// by one; drawing server-side keeps report.html one offline file that shows
// its charts before any script runs, prints as vectors, and costs a few
// kilobytes per chart, where a JavaScript library (uPlot, ECharts) would be
// inlined into every report (50 kB to 1 MB) and draw nothing until it ran.

// Okabe–Ito: the eight colours of Okabe and Ito's "Color Universal Design",
// told apart under every common colour-vision deficiency. Series use them
// in this order; black is kept for "all requests".
var (
	okBlack     = color.RGBA{0x00, 0x00, 0x00, 0xff}
	okOrange    = color.RGBA{0xE6, 0x9F, 0x00, 0xff}
	okSky       = color.RGBA{0x56, 0xB4, 0xE9, 0xff}
	okGreen     = color.RGBA{0x00, 0x9E, 0x73, 0xff}
	okBlue      = color.RGBA{0x00, 0x72, 0xB2, 0xff}
	okVermilion = color.RGBA{0xD5, 0x5E, 0x00, 0xff}
	okPurple    = color.RGBA{0xCC, 0x79, 0xA7, 0xff}
	// seriesColors are the colours of a chart's lines in order (Okabe–Ito's
	// yellow is left out: too pale for a thin line on white).
	seriesColors = []color.Color{okBlue, okVermilion, okGreen, okPurple, okOrange, okSky, okBlack}
	gridColor    = color.Gray{0xe4}
)

// colorRGBA is a colour with alpha a over white (not premultiplied).
func colorRGBA(r, g, b, a uint8) color.Color { return color.NRGBA{r, g, b, a} }

// figure is one chart of the report: its SVG and what it shows, in words
// (the labels are checked by the browser tests).
type figure struct {
	ID, Title string
	XLabel    string
	YLabel    string
	// Note is shown under the chart: how to read it, or what it lacks.
	Note string
	SVG  template.HTML
	// Empty says why there is no chart ("" when there is one).
	Empty string
}

// Chart sizes, in SVG units that the page shows at about one CSS pixel
// each in a two-column grid at 1400 px.
const (
	chartW, chartH = 600, 300
	tallChartH     = 380
)

// newPlot is a plot with the report's style: labelled axes, a light grid,
// the legend inside the top left corner.
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, 11)
		a.Label.Padding = vg.Points(4)
	}
	p.Legend.TextStyle.Font = font.From(sans, 12)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(-4)
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	p.Legend.Padding = vg.Points(3)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	p.Add(g)
	p.BackgroundColor = color.Transparent
	return p
}

// line adds a line of xys in colour c to p with its legend entry.
func line(p *plot.Plot, name string, xys plotter.XYs, c color.Color, width float64, dashes ...vg.Length) error {
	return addXYs(p, name, xys, plotter.NewLine, func(l *plotter.Line) {
		l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = c, vg.Points(width), dashes
	})
}

// dots adds a point per xy in colour c, drawn as shape, to p with its
// legend entry.
func dots(p *plot.Plot, name string, xys plotter.XYs, c color.Color, radius float64, shape draw.GlyphDrawer) error {
	return addXYs(p, name, xys, plotter.NewScatter, func(sc *plotter.Scatter) {
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = c, vg.Points(radius), shape
	})
}

// addXYs makes a plotter of xys with newT, styles it and adds it to p with
// its legend entry (none when name is "").
func addXYs[T interface {
	plot.Plotter
	plot.Thumbnailer
}](p *plot.Plot, name string, xys plotter.XYs, newT func(plotter.XYer) (T, error), style func(T)) error {
	t, err := newT(xys)
	if err != nil {
		return fmt.Errorf("plotting %s: %w", name, err)
	}
	style(t)
	p.Add(t)
	if name != "" {
		p.Legend.Add(name, t)
	}
	return nil
}

// hline adds a dashed horizontal line at y (a budget) across [x0, x1].
func hline(p *plot.Plot, name string, y, x0, x1 float64, c color.Color) error {
	return line(p, name, plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}, c, 1.5, vg.Points(6), vg.Points(4))
}

// legendRoom raises a linear y axis so the legend, in the top left
// corner, sits above the data of a plot h units high.
func legendRoom(p *plot.Plot, dc draw.Canvas, h float64) {
	if _, linear := p.Y.Scale.(plot.LinearScale); !linear || p.Y.Max <= p.Y.Min {
		return
	}
	r := p.Legend.Rectangle(dc)
	legendH := float64(r.Max.Y-r.Min.Y) + 10
	area := h - 60 // less the x axis and its label
	if legendH <= 0 || area <= legendH {
		return
	}
	p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)*area/(area-legendH)
}

// niceTicks marks about six round values (1, 2 or 5 times a power of ten)
// across an axis, labelled without trailing zeros ("0.5", "250", "1200").
type niceTicks struct{}

var _ plot.Ticker = niceTicks{}

// Ticks returns the ticks of [min, max].
func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 4, 64)}}
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
		for k := 1; k < 5; k++ { // unlabelled minor ticks
			if m := v + float64(k)*step/5; m <= max {
				ticks = append(ticks, plot.Tick{Value: m})
			}
		}
	}
	return ticks
}

var svgHead = regexp.MustCompile(`(?s)^.*?<svg width="[^"]*" height="[^"]*"`)

// renderSVG draws plots stacked in one column (aligned on their axes) on an
// SVG canvas of w×h units and returns the markup to inline: without the
// XML prologue, scaling to its container, labelled for screen readers.
func renderSVG(plots []*plot.Plot, w, h float64, label string, hovers ...*hoverColumns) (template.HTML, error) {
	c := vgsvg.New(vg.Length(w), vg.Length(h))
	dc := draw.New(c)
	for _, p := range plots {
		legendRoom(p, dc, h/float64(len(plots)))
	}
	if len(plots) == 1 {
		plots[0].Draw(dc)
	} else {
		grid := make([][]*plot.Plot, len(plots))
		for i, p := range plots {
			grid[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(6)}
		cs := plot.Align(grid, tiles, dc)
		for i, p := range plots {
			p.Draw(cs[i][0])
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("drawing %s: %w", label, err)
	}
	head := fmt.Sprintf(`<svg class="chart" role="img" aria-label="%s" preserveAspectRatio="xMidYMid meet"`, template.HTMLEscapeString(label))
	out := svgHead.ReplaceAll(buf.Bytes(), []byte(head))
	out = fontFamily.ReplaceAll(out, []byte(`font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`))
	var hover strings.Builder
	for _, hc := range hovers {
		hover.WriteString(hc.svg(h))
	}
	if hover.Len() > 0 {
		end := bytes.LastIndex(out, []byte("</svg>"))
		out = append(out[:end:end], append([]byte(hover.String()), out[end:]...)...)
	}
	return template.HTML(out), nil
}

// sans is the charts' font: Liberation Sans, whose metrics gonum/plot
// lays text out with and which is metric-compatible with Arial, the
// fallback the page names (see fontFamily).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// fontFamily widens the SVG's font family to fonts a browser without
// Liberation Sans has, of the same metrics.
var fontFamily = regexp.MustCompile(`font-family:Liberation Sans;`)
