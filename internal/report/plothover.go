package report

import (
	"fmt"
	"html"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// hoverColumns gives a time chart its values on hover, without a script:
// one invisible column per second of the plot area, whose <title> the
// browser shows as a tooltip (and which CSS shades under the pointer).
// gonum/plot's canvas has no element for a tooltip, so the columns are
// placed while the plot is drawn (where its data-to-canvas transform is
// known) and added to the SVG after it (see renderSVG).
type hoverColumns struct {
	x      []float64 // the middle of each second
	labels []string
	rects  []hoverRect
}

// hoverRect is one column in canvas units (origin at the bottom left).
type hoverRect struct {
	x0, x1, y0, y1 float64
	label          string
}

var _ plot.Plotter = (*hoverColumns)(nil)

// Plot records where each second's column lies; it draws nothing.
func (h *hoverColumns) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, x := range h.x {
		x0, x1 := max(trX(x-0.5), c.Min.X), min(trX(x+0.5), c.Max.X)
		if x1 > x0 && h.labels[i] != "" {
			h.rects = append(h.rects, hoverRect{float64(x0), float64(x1), float64(c.Min.Y), float64(c.Max.Y), h.labels[i]})
		}
	}
}

// svg writes the columns for an SVG of height h (whose y axis points down).
func (h *hoverColumns) svg(height float64) string {
	var b strings.Builder
	b.WriteString(`<g class="hover">`)
	for _, r := range h.rects {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
			r.x0, height-r.y1, r.x1-r.x0, r.y1-r.y0, html.EscapeString(r.label))
	}
	b.WriteString(`</g>`)
	return b.String()
}
