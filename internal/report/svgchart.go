package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// The report's time-series charts are small inline SVG line charts drawn
// here rather than with a plotting library: gonum/plot would add a large
// dependency tree for five line charts, and a JavaScript chart library
// would have to be inlined into every report to keep it self-contained.

// chart is one time-series chart: x in seconds since the load began.
type chart struct {
	Title  string
	Unit   func(float64) string // formats a y value with its unit
	Series []series
	// Limit, when > 0, is drawn as a dashed horizontal line (a budget).
	Limit      float64
	LimitLabel string
}

// series is one line of a chart; NaN values leave gaps.
type series struct {
	Name  string
	Color string
	X, Y  []float64
}

// Chart geometry in SVG user units; the SVG scales to its container.
const (
	chartW, chartH           = 520, 210
	padL, padR, padT, padB   = 74, 14, 12, 28
	plotW, plotH             = chartW - padL - padR, chartH - padT - padB
	chartGrid, chartAxisText = "#e6e6e6", "#666"
)

// svg renders the chart; a chart without any finite point renders a short
// note instead.
func (c chart) svg() template.HTML {
	xmax, ymax := 0.0, c.Limit
	any := false
	for _, s := range c.Series {
		for i := range s.X {
			if !finite(s.Y[i]) {
				continue
			}
			any = true
			xmax, ymax = math.Max(xmax, s.X[i]), math.Max(ymax, s.Y[i])
		}
	}
	if !any {
		return template.HTML(`<p class="nodata">no data</p>`)
	}
	xmax = math.Max(xmax, 1)
	yticks := niceTicks(ymax)
	ytop := yticks[len(yticks)-1]
	px := func(x float64) float64 { return padL + x/xmax*plotW }
	py := func(y float64) float64 { return padT + plotH - y/ytop*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, chartW, chartH, html.EscapeString(c.Title))
	for _, t := range yticks {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>`, padL, chartW-padR, y, y, chartGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="13" fill="%s">%s</text>`, padL-5, y+4, chartAxisText, html.EscapeString(c.Unit(t)))
	}
	for _, t := range niceTicks(xmax) {
		if t > xmax {
			break
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="13" fill="%s">%gs</text>`, px(t), chartH-8, chartAxisText, t)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#999"/>`, padL, chartW-padR, padT+plotH, padT+plotH)
	if c.Limit > 0 {
		y := py(c.Limit)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c00" stroke-dasharray="5 4"/>`, padL, chartW-padR, y, y)
		ly := y - 5
		if ly < padT+12 {
			ly = y + 15 // no room above the line
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="13" fill="#c00">%s</text>`, chartW-padR-2, ly, html.EscapeString(c.LimitLabel))
	}
	for _, s := range c.Series {
		c.line(&b, s, px, py)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// line draws one series as a polyline per run of finite points, with a dot
// per point whose tooltip gives the exact value.
func (c chart) line(b *strings.Builder, s series, px, py func(float64) float64) {
	var pts []string
	flush := func() {
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round" points="%s"/>`, s.Color, strings.Join(pts, " "))
		}
		pts = pts[:0]
	}
	for i := range s.X {
		if !finite(s.Y[i]) {
			flush()
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(s.Y[i])))
	}
	flush()
	for i := range s.X {
		if finite(s.Y[i]) {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s at %gs: %s</title></circle>`,
				px(s.X[i]), py(s.Y[i]), s.Color, html.EscapeString(s.Name), s.X[i], html.EscapeString(c.Unit(s.Y[i])))
		}
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// niceTicks returns 0 and up to about five round steps reaching at least
// max (1, 2, 2.5 or 5 times a power of ten).
func niceTicks(max float64) []float64 {
	if max <= 0 || !finite(max) {
		return []float64{0, 1}
	}
	raw := max / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	ticks := []float64{0}
	for v := step; ; v += step {
		ticks = append(ticks, v)
		if v >= max*(1-1e-9) {
			return ticks
		}
	}
}
