package report

import (
	"fmt"
	"image/color"
	"math"
	"net/url"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// charts builds the report's charts of a run: the latency distribution,
// latency over time, throughput, CPU against the budget with throttling,
// and memory with the GC. A chart without data is a figure that says what
// is missing.
func charts(r *runfmt.Run) []figure {
	if r.Load == nil {
		return nil
	}
	figs := []figure{latencyDistribution(r)}
	s := newTimeSeries(r)
	figs = append(figs, latencyOverTime(s), phasesOverTime(r, s), throughputChart(s), cpuChart(r, s), memoryChart(r, s))
	return figs
}

// maxTargetLines is how many targets get a line of their own on the
// latency distribution.
const maxTargetLines = 6

// latencyDistribution is the percentile distribution of latency, as
// HdrHistogram's plotter draws it: the percentile on a log scale of
// 1/(1−p), so the tail (99%, 99.9%, 99.99%) gets as much room as the body.
func latencyDistribution(r *runfmt.Run) figure {
	f := figure{ID: "latency-percentiles", Title: "Latency by percentile", XLabel: "percentile", YLabel: "latency (ms)",
		Note: "HDR percentile distribution: the tail on a log scale (90%, 99%, 99.9%…); every request counted, from its intended start in the open model."}
	l := r.Load
	var all plotter.XYs
	var err error
	if l.Histogram != "" {
		all, err = percentileLine(l.Histogram)
	}
	switch {
	case l.Requests == 0 || err == nil && l.Histogram != "" && len(all) == 0:
		f.Empty = "No request completed: no latency to draw."
		return f
	case l.Histogram == "":
		f.Empty = "No latency histogram in this run's run.json."
		return f
	case err != nil:
		f.Empty = "The latency histogram could not be read: " + err.Error() + "."
		return f
	}
	p := newPlot(f.XLabel, f.YLabel)
	p.X.Scale = plot.LogScale{}
	xmax := all[len(all)-1].X
	p.X.Tick.Marker = percentileTicks(xmax)
	p.Y.Min = 0
	var targets []runfmt.TargetStats
	for _, t := range l.Targets {
		if t.Histogram != "" && len(targets) < maxTargetLines {
			targets = append(targets, t)
		}
	}
	for i, t := range targets {
		xys, err := percentileLine(t.Histogram)
		if err != nil || len(xys) == 0 {
			continue
		}
		if err := line(p, shortTarget(t.Target), xys, seriesColors[i%len(seriesColors)], 1.5); err != nil {
			return f.failed(err)
		}
	}
	if err := line(p, "all requests", all, okBlack, 2.2); err != nil {
		return f.failed(err)
	}
	for _, c := range l.SLO {
		if c.Unit == "ms" && strings.HasPrefix(c.Metric, "p") {
			if err := hline(p, "SLO "+c.Objective, c.Limit, 1, xmax, okVermilion); err != nil {
				return f.failed(err)
			}
		}
	}
	if len(l.Targets) > len(targets) {
		f.Note += fmt.Sprintf(" %d targets; the first %d drawn.", len(l.Targets), len(targets))
	}
	return f.draw(p)
}

// percentileLine samples a histogram's percentiles at 40 points per decade
// of 1/(1−p), up to the percentile of its last request.
func percentileLine(encoded string) (plotter.XYs, error) {
	h, err := DecodeHistogram(encoded)
	if err != nil {
		return nil, err
	}
	n := h.TotalCount()
	if n == 0 {
		return nil, nil
	}
	top := math.Min(float64(n), 1e7)
	var xys plotter.XYs
	for i := 0; ; i++ {
		x := math.Pow(10, float64(i)/40)
		if x > top {
			x = top
		}
		q := 100 * (1 - 1/x)
		xys = append(xys, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(q)) / 1000})
		if x >= top {
			return xys, nil
		}
	}
}

// percentileTicks labels 1/(1−p) = 1, 10, 100... as 0%, 90%, 99%...
func percentileTicks(xmax float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for x, nines := 1.0, 0; x <= xmax*1.0001; x, nines = x*10, nines+1 {
		label := "0%"
		if nines > 0 {
			label = strings.TrimSuffix(fmt.Sprintf("%.*f", max(nines-2, 0), 100-100/x), ".") + "%"
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: label})
	}
	return ticks
}

// shortTarget names a target by method and path ("GET /search?q=steel").
func shortTarget(t string) string {
	method, raw, ok := strings.Cut(t, " ")
	if !ok {
		return units.Shorten(t, 48)
	}
	if u, err := url.Parse(raw); err == nil && u.Path != "" {
		raw = u.RequestURI()
	}
	return units.Shorten(method+" "+raw, 48)
}

// timeSeries is the run's per-second series as chart columns; NaN where a
// second has no value.
type timeSeries struct {
	x                         []float64
	reqs, errs, scheduled     []float64
	p50, p99, maxLat          []float64
	cpu, rss, throttled       []float64
	duration, end             float64
	budgetCores, budgetMemMiB float64
}

func newTimeSeries(r *runfmt.Run) *timeSeries {
	pts := r.Load.Series
	// The last point may cover a fraction of a second: leave it out when
	// it covers less than half, so the lines do not end in a false drop.
	if n := len(pts); n > 1 && r.Load.DurationS-pts[n-1].T < 0.5 {
		pts = pts[:n-1]
	}
	s := &timeSeries{duration: r.Load.DurationS}
	col := func(get func(p *runfmt.SeriesPoint) (float64, bool)) []float64 {
		ys := make([]float64, len(pts))
		for i := range pts {
			ys[i] = math.NaN()
			if v, ok := get(&pts[i]); ok {
				ys[i] = v
			}
		}
		return ys
	}
	// Each point covers [T, T+1): it is drawn at the middle of its second.
	s.x = col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.T + 0.5, true })
	s.reqs = col(func(p *runfmt.SeriesPoint) (float64, bool) { return float64(p.Requests), true })
	s.errs = col(func(p *runfmt.SeriesPoint) (float64, bool) { return float64(p.Errors), true })
	s.scheduled = col(func(p *runfmt.SeriesPoint) (float64, bool) { return deref(p.ScheduledPerS) })
	ok := func(p *runfmt.SeriesPoint) bool { return p.Requests > p.Errors }
	s.p50 = col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.P50, ok(p) })
	s.p99 = col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.P99, ok(p) })
	s.maxLat = col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.Max, ok(p) && p.Max > 0 })
	s.cpu = col(func(p *runfmt.SeriesPoint) (float64, bool) { return deref(p.CPUCores) })
	s.throttled = col(func(p *runfmt.SeriesPoint) (float64, bool) { return deref(p.ThrottledPct) })
	s.rss = col(func(p *runfmt.SeriesPoint) (float64, bool) {
		if p.RSSBytes == nil {
			return 0, false
		}
		return float64(*p.RSSBytes) / (1 << 20), true
	})
	if n := len(pts); n > 0 {
		s.end = pts[n-1].T + 1
		// A last second the load covered in part (0.5 to 1 s of it) has
		// its counts as rates, so throughput does not drop at the end.
		if part := r.Load.DurationS - pts[n-1].T; part >= 0.5 && part < 1 {
			s.reqs[n-1] /= part
			s.errs[n-1] /= part
			s.scheduled[n-1] /= part
		}
	}
	if t := r.Target; t != nil {
		s.budgetCores = t.CPULimitCores
		s.budgetMemMiB = float64(t.MemoryLimitBytes) / (1 << 20)
	}
	return s
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// runs splits a column into runs of finite points (gaps break lines).
func (s *timeSeries) runs(ys []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, plotter.XY{X: s.x[i], Y: y})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// has says whether a column has any finite value.
func has(ys []float64) bool {
	for _, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			return true
		}
	}
	return false
}

// lines adds a column's runs as one legend entry.
func (s *timeSeries) lines(p *plot.Plot, name string, ys []float64, c color.Color, width float64) error {
	for i, xys := range s.runs(ys) {
		n := name
		if i > 0 {
			n = ""
		}
		if len(xys) == 1 { // a lone second: a dot, so it shows
			if err := dots(p, n, xys, c, 2.5, draw.CircleGlyph{}); err != nil {
				return err
			}
			continue
		}
		if err := line(p, n, xys, c, width); err != nil {
			return err
		}
	}
	return nil
}

// hover gives p a tooltip per second: the second's span, then label(i).
func (s *timeSeries) hover(p *plot.Plot, label func(i int) string) *hoverColumns {
	h := &hoverColumns{x: s.x, labels: make([]string, len(s.x))}
	for i, x := range s.x {
		h.labels[i] = fmt.Sprintf("%g–%g s: %s", x-0.5, x+0.5, label(i))
	}
	p.Add(h)
	return h
}

// val formats a chart value with its unit ("–" when not measured).
func val(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return units.Sig(v) + unit
}

// timePlot is a plot over the load's seconds.
func (s *timeSeries) timePlot(yLabel string) *plot.Plot {
	p := newPlot("time since the load began (s)", yLabel)
	p.X.Min, p.X.Max = 0, math.Max(s.end, 1)
	p.Y.Min = 0
	return p
}

func latencyOverTime(s *timeSeries) figure {
	f := figure{ID: "latency-time", Title: "Latency over time", XLabel: "time since the load began (s)", YLabel: "latency (ms)",
		Note: "Per second: the band spans p50 to p99; dots mark the slowest request."}
	if !has(s.p50) {
		f.Empty = "No second of the window completed a request without error: no latency to draw."
		return f
	}
	p := s.timePlot(f.YLabel)
	for _, run := range bandRuns(s) {
		poly, err := plotter.NewPolygon(run)
		if err != nil {
			return f.failed(err)
		}
		poly.Color, poly.LineStyle.Width = bandFill, 0
		p.Add(poly)
	}
	if err := s.lines(p, "p50", s.p50, okBlue, 2); err != nil {
		return f.failed(err)
	}
	if err := s.lines(p, "p99", s.p99, okVermilion, 2); err != nil {
		return f.failed(err)
	}
	if xys := flatten(s.runs(s.maxLat)); len(xys) > 0 {
		if err := dots(p, "max", xys, okBlack, 2, draw.CircleGlyph{}); err != nil {
			return f.failed(err)
		}
	}
	hc := s.hover(p, func(i int) string {
		return fmt.Sprintf("p50 %s, p99 %s, max %s", val(s.p50[i], " ms"), val(s.p99[i], " ms"), val(s.maxLat[i], " ms"))
	})
	return f.draw(p, hc)
}

// bandFill is the p50–p99 band: Okabe–Ito's sky blue, light.
var bandFill = colorRGBA(0x56, 0xB4, 0xE9, 0x55)

// bandRuns are the p50–p99 band's polygons, one per run of seconds with both.
func bandRuns(s *timeSeries) []plotter.XYs {
	var out []plotter.XYs
	var lo, hi plotter.XYs
	flush := func() {
		if len(lo) > 1 {
			ring := append(plotter.XYs{}, lo...)
			for i := len(hi) - 1; i >= 0; i-- {
				ring = append(ring, hi[i])
			}
			out = append(out, ring)
		}
		lo, hi = nil, nil
	}
	for i := range s.x {
		if math.IsNaN(s.p50[i]) || math.IsNaN(s.p99[i]) {
			flush()
			continue
		}
		lo = append(lo, plotter.XY{X: s.x[i], Y: s.p50[i]})
		hi = append(hi, plotter.XY{X: s.x[i], Y: s.p99[i]})
	}
	flush()
	return out
}

func flatten(runs []plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

func throughputChart(s *timeSeries) figure {
	f := figure{ID: "throughput", Title: "Throughput", XLabel: "time since the load began (s)", YLabel: "per second",
		Note: "Requests completed and failed in each second (a last second the load covered in part, as a rate)."}
	if len(s.x) == 0 {
		f.Empty = "The load lasted less than a second: no per-second series."
		return f
	}
	p := s.timePlot(f.YLabel)
	if err := s.lines(p, "requests/s", s.reqs, okBlue, 2); err != nil {
		return f.failed(err)
	}
	if err := s.lines(p, "errors/s", s.errs, okVermilion, 2); err != nil {
		return f.failed(err)
	}
	open := has(s.scheduled)
	if open {
		f.Note = "Requests completed and failed in each second, beside the arrivals the open model's schedule put in it (a last second the load covered in part, as a rate)."
		for i, xys := range s.runs(s.scheduled) { // dashed, one legend entry
			name := "scheduled/s"
			if i > 0 {
				name = ""
			}
			if err := line(p, name, xys, okBlack, 1.5, vg.Points(6), vg.Points(4)); err != nil {
				return f.failed(err)
			}
		}
	}
	hc := s.hover(p, func(i int) string {
		t := fmt.Sprintf("%s requests/s, %s errors/s", val(s.reqs[i], ""), val(s.errs[i], ""))
		if open {
			t += ", " + val(s.scheduled[i], "") + " scheduled/s"
		}
		return t
	})
	return f.draw(p, hc)
}

// cpuChart draws the service's CPU against its budget and, below on the
// same time axis, the share of CFS periods it was throttled in.
func cpuChart(r *runfmt.Run, s *timeSeries) figure {
	f := figure{ID: "cpu", Title: "CPU against the budget", XLabel: "time since the load began (s)", YLabel: "CPU (cores)"}
	if !has(s.cpu) {
		f.Empty = "The service's CPU was not sampled in this run (no process or cgroup to read)."
		return f
	}
	p := s.timePlot(f.YLabel)
	if err := s.lines(p, "cores used", s.cpu, okBlue, 2); err != nil {
		return f.failed(err)
	}
	if s.budgetCores > 0 {
		if err := hline(p, fmt.Sprintf("%g-core budget", s.budgetCores), s.budgetCores, 0, p.X.Max, okVermilion); err != nil {
			return f.failed(err)
		}
		p.Y.Max = math.Max(p.Y.Max, s.budgetCores*1.15)
	}
	hc := s.hover(p, func(i int) string { return val(s.cpu[i], " cores") })
	if !has(s.throttled) {
		f.Note = "No CPU quota: throttling was not measured."
		if s.budgetCores > 0 {
			f.Note = "The cgroup reported no CFS periods: throttling was not measured."
		}
		return f.draw(p, hc)
	}
	f.Note = "Below: the share of CFS periods in which the service ran out of its quota and was stopped."
	p.X.Label.Text = "" // the throttling panel below carries the time axis
	t := s.timePlot("throttled (%)")
	t.Y.Max = 100
	var bars []plotter.XYer
	for i, v := range s.throttled {
		if v > 0 && !math.IsNaN(v) {
			x0 := s.x[i] - 0.5
			bars = append(bars, plotter.XYs{{X: x0, Y: 0}, {X: x0 + 1, Y: 0}, {X: x0 + 1, Y: v}, {X: x0, Y: v}})
		}
	}
	if len(bars) == 0 {
		p.X.Label.Text = f.XLabel
		f.Note = "Never throttled: the service stayed within its CPU quota in every period."
		return f.draw(p, hc)
	}
	poly, err := plotter.NewPolygon(bars...)
	if err != nil {
		return f.failed(err)
	}
	poly.Color, poly.LineStyle.Width = okVermilion, 0
	t.Add(poly)
	t.Legend.Add("% of periods throttled", poly)
	for i := range hc.labels {
		hc.labels[i] += ", throttled in " + val(s.throttled[i], "%") + " of periods"
	}
	return f.drawStacked([]*plot.Plot{p, t}, hc)
}

// memoryChart draws the resident memory and, for a Go service run with
// gctrace, the heap at each collection: its size when the collection
// started and what it found live, with a mark per collection.
func memoryChart(r *runfmt.Run, s *timeSeries) figure {
	f := figure{ID: "memory", Title: "Memory and garbage collection", XLabel: "time since the load began (s)", YLabel: "memory (MiB)"}
	var events []runfmt.GCEvent
	if r.GC != nil {
		events = r.GC.Events
	}
	if !has(s.rss) && len(events) == 0 {
		f.Empty = "The service's memory was not sampled in this run."
		return f
	}
	p := s.timePlot(f.YLabel)
	if err := s.lines(p, "RSS", s.rss, okBlue, 2); err != nil {
		return f.failed(err)
	}
	if len(events) > 0 {
		var live, start, marks plotter.XYs
		for _, e := range events {
			live = append(live, plotter.XY{X: e.T, Y: e.HeapLiveMiB})
			start = append(start, plotter.XY{X: e.T, Y: e.HeapStartMiB})
			marks = append(marks, plotter.XY{X: e.T, Y: 0})
		}
		if err := line(p, "live heap after GC", live, okGreen, 2); err != nil {
			return f.failed(err)
		}
		if err := dots(p, "heap when GC started", start, okOrange, 2.5, draw.CircleGlyph{}); err != nil {
			return f.failed(err)
		}
		if err := dots(p, "a collection", marks, okBlack, 3, draw.PyramidGlyph{}); err != nil {
			return f.failed(err)
		}
		f.Note = fmt.Sprintf("%d collections in the window (gctrace); ▲ marks each.", len(events))
		if r.GC.Count > len(events) {
			f.Note = fmt.Sprintf("%d collections in the window (gctrace); %d of them drawn, ▲ marks each.", r.GC.Count, len(events))
		}
	} else if r.GC != nil && r.GC.Count > 0 {
		f.Note = fmt.Sprintf("%d collections in the window (see the verdict), not drawn: this run.json keeps no GC events (it was written before perflab recorded them).", r.GC.Count)
	} else {
		f.Note = "No GC trace: the service is not a Go program run with gctrace (perflab sets GODEBUG=gctrace=1 on the Go services it launches)."
	}
	if s.budgetMemMiB > 0 {
		if err := hline(p, "budget "+units.FormatBytes(s.budgetMemMiB*(1<<20)), s.budgetMemMiB, 0, p.X.Max, okVermilion); err != nil {
			return f.failed(err)
		}
	}
	hc := s.hover(p, func(i int) string {
		return fmt.Sprintf("RSS %s", val(s.rss[i], " MiB"))
	})
	return f.draw(p, hc)
}

// draw renders one plot into the figure.
func (f figure) draw(p *plot.Plot, hovers ...*hoverColumns) figure {
	return f.render([]*plot.Plot{p}, chartH, hovers)
}

// drawStacked renders plots one above the other, aligned.
func (f figure) drawStacked(ps []*plot.Plot, hovers ...*hoverColumns) figure {
	return f.render(ps, tallChartH, hovers)
}

func (f figure) render(ps []*plot.Plot, h float64, hovers []*hoverColumns) figure {
	svg, err := renderSVG(ps, chartW, h, f.Title, hovers...)
	if err != nil {
		return f.failed(err)
	}
	f.SVG = svg
	return f
}

// failed is a figure that could not be drawn, saying why.
func (f figure) failed(err error) figure {
	f.SVG, f.Empty = "", "This chart could not be drawn: "+err.Error()
	return f
}
