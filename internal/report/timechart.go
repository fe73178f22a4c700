package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// kindPalette colours each kind of wall time (runfmt.TimeKinds) with an
// Okabe–Ito colour: CPU warm (running vermilion, runnable orange), waits
// cool, the GC grey; the same in the chart and its table.
var kindPalette = map[runfmt.TimeKind]color.RGBA{
	runfmt.TimeRunning: okVermilion, runfmt.TimeRunnable: okOrange, runfmt.TimeNetwork: okBlue, runfmt.TimeSync: okPurple,
	runfmt.TimeSyscall: okGreen, runfmt.TimeGC: {0x99, 0x99, 0x99, 0xff}, runfmt.TimeSleep: okSky, runfmt.TimeOther: {0xF0, 0xE4, 0x42, 0xff},
}

// kindColor is a kind's colour as CSS.
func kindColor(kind runfmt.TimeKind) string {
	c, ok := kindPalette[kind]
	if !ok {
		c = color.RGBA{0xcc, 0xcc, 0xcc, 0xff}
	}
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// timeChart draws the time per request as a stacked horizontal bar, one
// segment per kind, above a bar of the mean latency the load measured: what
// the split does not cover was spent outside the service (the network, the
// load generator's queue).
func timeChart(r *runfmt.Run) *figure {
	t := r.Time
	if t == nil || t.TotalMs <= 0 {
		return nil
	}
	f := &figure{ID: "time", Title: "Where a request's time goes", XLabel: "wall time per request (ms)", YLabel: "per request",
		Note: "The split of a request's wall time, in the order of the table below; the bar under it is the mean latency the load generator measured."}
	p := newPlot(f.XLabel, f.YLabel)
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "latency (mean)"}, {Value: 1, Label: "split"}}
	p.Y.Min, p.Y.Max = -0.6, 1.6
	p.X.Min = 0
	var below *plotter.BarChart
	for _, k := range t.Kinds {
		if k.MsPerRequest <= 0 {
			continue
		}
		b, err := plotter.NewBarChart(plotter.Values{0, k.MsPerRequest}, vg.Points(34))
		if err != nil {
			v := f.failed(err)
			return &v
		}
		b.Horizontal, b.Color, b.LineStyle.Width = true, kindPalette[k.Kind], 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s %s", k.Kind, units.FormatMs(k.MsPerRequest)), b)
	}
	if r.Load != nil && r.Load.Latency.Mean > 0 {
		b, err := plotter.NewBarChart(plotter.Values{r.Load.Latency.Mean, 0}, vg.Points(34))
		if err != nil {
			v := f.failed(err)
			return &v
		}
		b.Horizontal, b.Color, b.LineStyle.Width = true, color.Gray{0x55}, 0
		p.Add(b)
		p.Legend.Add("mean latency "+units.FormatMs(r.Load.Latency.Mean), b)
		p.X.Max = math.Max(p.X.Max, r.Load.Latency.Mean)
	}
	v := f.draw(p)
	return &v
}
