package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot/plotter"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// requestPhase is one layer of the phases chart: its name, colour and
// value in a second's runfmt.PhaseMeans.
type requestPhase struct {
	name  string
	color color.Color
	ms    func(p *runfmt.PhaseMeans) float64
}

// requestPhases are the layers bottom up, in the order a request goes
// through them (k6's blocked, connecting, waiting, receiving).
var requestPhases = []requestPhase{
	{"blocked", okPurple, func(p *runfmt.PhaseMeans) float64 { return p.BlockedMs }},
	{"connecting", okOrange, func(p *runfmt.PhaseMeans) float64 { return p.ConnectingMs }},
	{"waiting", okBlue, func(p *runfmt.PhaseMeans) float64 { return p.WaitingMs }},
	{"receiving", okGreen, func(p *runfmt.PhaseMeans) float64 { return p.ReceivingMs }},
}

// phasesOverTime stacks each second's mean latency by phase, as k6's
// report splits a request: the layers add up to the mean latency of the
// second's answered requests.
func phasesOverTime(r *runfmt.Run, s *timeSeries) figure {
	f := figure{ID: "phases-time", Title: "Request phases over time", XLabel: "time since the load began (s)", YLabel: "mean per request (ms)",
		Note: "Per second, the mean latency of the requests answered, split by phase: blocked (sent after their scheduled start), connecting, waiting (sent to first byte) and receiving (the rest of the response). The layers add up to that mean."}
	pts := r.Load.Series[:len(s.x)]
	if !hasPhases(pts) {
		f.Empty = "No second holds request phases: the load answered no request, or this run was written by a perflab that did not time them per second."
		return f
	}
	p := s.timePlot(f.YLabel)
	below := make([]float64, len(pts))
	for _, ph := range requestPhases {
		if !phaseUsed(pts, ph) {
			continue
		}
		var layer []plotter.XYer
		for _, run := range phaseRuns(pts) {
			var lo, hi plotter.XYs
			for _, i := range run {
				v := ph.ms(pts[i].Phases)
				lo = append(lo, plotter.XY{X: s.x[i], Y: below[i]})
				hi = append(hi, plotter.XY{X: s.x[i], Y: below[i] + v})
				below[i] += v
			}
			layer = append(layer, band(lo, hi))
		}
		poly, err := plotter.NewPolygon(layer...)
		if err != nil {
			return f.failed(err)
		}
		poly.Color, poly.LineStyle.Width = ph.color, 0
		p.Add(poly)
		p.Legend.Add(ph.name, poly)
	}
	hc := s.hover(p, func(i int) string { return phaseLabel(pts[i].Phases) })
	return f.draw(p, hc)
}

// band is the polygon between two lines over the same xs: one point at
// a second draws a bar a second wide.
func band(lo, hi plotter.XYs) plotter.XYs {
	if len(lo) == 1 {
		x := lo[0].X
		return plotter.XYs{{X: x - 0.5, Y: lo[0].Y}, {X: x + 0.5, Y: lo[0].Y}, {X: x + 0.5, Y: hi[0].Y}, {X: x - 0.5, Y: hi[0].Y}}
	}
	ring := append(plotter.XYs{}, lo...)
	for i := len(hi) - 1; i >= 0; i-- {
		ring = append(ring, hi[i])
	}
	return ring
}

// phaseRuns are the runs of consecutive seconds with phases, as indexes.
func phaseRuns(pts []runfmt.SeriesPoint) [][]int {
	var out [][]int
	var cur []int
	for i := range pts {
		if pts[i].Phases == nil {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, i)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func hasPhases(pts []runfmt.SeriesPoint) bool {
	for _, p := range pts {
		if p.Phases != nil {
			return true
		}
	}
	return false
}

// phaseUsed says whether a phase took any time in some second: a layer
// that is zero everywhere (blocked in the closed model, connecting over
// kept-alive connections) gets no legend entry.
func phaseUsed(pts []runfmt.SeriesPoint, ph requestPhase) bool {
	for _, p := range pts {
		if p.Phases != nil && ph.ms(p.Phases) > 0 {
			return true
		}
	}
	return false
}

// phaseLabel is a second's hover text: each phase's mean, their sum.
func phaseLabel(p *runfmt.PhaseMeans) string {
	if p == nil {
		return "no request answered"
	}
	var parts []string
	for _, ph := range requestPhases {
		parts = append(parts, ph.name+" "+val(ph.ms(p), " ms"))
	}
	return fmt.Sprintf("%s = %s ms over %s requests", strings.Join(parts, ", "), units.Sig(p.Ms()), units.Sig(float64(p.Timed)))
}
