package report

import (
	"fmt"
	"math"
	"strconv"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// Colours of the report's chart lines.
const (
	colBlue, colOrange, colRed, colGreen, colPurple = "#2b6cb0", "#dd6b20", "#c53030", "#2f855a", "#6b46c1"
)

// charts builds the per-second charts of a run: throughput and errors,
// latency p50 and p99, CPU cores (with the budget), RSS (with the memory
// budget) and throttling. Charts without data are left out.
func charts(r *runfmt.Run) []namedChart {
	if r.Load == nil || len(r.Load.Series) == 0 {
		return nil
	}
	pts := r.Load.Series
	// The last point may cover a fraction of a second: leave it out when
	// it covers less than half, so the lines do not end in a false drop.
	if last := pts[len(pts)-1]; len(pts) > 1 && r.Load.DurationS-last.T < 0.5 {
		pts = pts[:len(pts)-1]
	}
	n := len(pts)
	x := make([]float64, n)
	col := func(get func(p *runfmt.SeriesPoint) (float64, bool)) []float64 {
		ys := make([]float64, n)
		for i := range pts {
			v, ok := get(&pts[i])
			ys[i] = math.NaN()
			if ok {
				ys[i] = v
			}
		}
		return ys
	}
	for i := range pts {
		x[i] = pts[i].T
	}
	var out []namedChart
	add := func(c chart) {
		for _, s := range c.Series {
			for _, y := range s.Y {
				if finite(y) {
					out = append(out, namedChart{Title: c.Title, Series: c.Series, SVG: c.svg()})
					return
				}
			}
		}
	}
	reqs := col(func(p *runfmt.SeriesPoint) (float64, bool) { return float64(p.Requests), true })
	errs := col(func(p *runfmt.SeriesPoint) (float64, bool) { return float64(p.Errors), true })
	add(chart{Title: "Throughput", Unit: unitPlain("/s"),
		Series: []series{{"requests/s", colBlue, x, reqs}, {"errors/s", colRed, x, errs}}})
	p50 := col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.P50, p.Requests > p.Errors })
	p99 := col(func(p *runfmt.SeriesPoint) (float64, bool) { return p.P99, p.Requests > p.Errors })
	add(chart{Title: "Latency", Unit: formatMs,
		Series: []series{{"p50", colGreen, x, p50}, {"p99", colOrange, x, p99}}})
	cpu := col(func(p *runfmt.SeriesPoint) (float64, bool) { return deref(p.CPUCores) })
	c := chart{Title: "Target CPU", Unit: unitPlain(" cores"), Series: []series{{"cores used", colPurple, x, cpu}}}
	if t := r.Target; t != nil && t.CPULimitCores > 0 {
		c.Limit, c.LimitLabel = t.CPULimitCores, fmt.Sprintf("budget %g", t.CPULimitCores)
	}
	add(c)
	rss := col(func(p *runfmt.SeriesPoint) (float64, bool) {
		if p.RSSBytes == nil {
			return 0, false
		}
		return float64(*p.RSSBytes) / (1 << 20), true
	})
	c = chart{Title: "Resident memory", Unit: unitPlain(" MiB"), Series: []series{{"RSS", colBlue, x, rss}}}
	if t := r.Target; t != nil && t.MemoryLimitBytes > 0 {
		c.Limit, c.LimitLabel = float64(t.MemoryLimitBytes)/(1<<20), "budget "+analysis.FormatBytes(float64(t.MemoryLimitBytes))
	}
	add(c)
	thr := col(func(p *runfmt.SeriesPoint) (float64, bool) { return deref(p.ThrottledPct) })
	add(chart{Title: "CPU throttling", Unit: unitPlain("%"), Series: []series{{"% of CFS periods throttled", colRed, x, thr}}})
	return out
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// unitPlain formats a value with a suffix: whole numbers from 100 up,
// else up to 3 significant digits.
func unitPlain(suffix string) func(float64) string {
	return func(v float64) string {
		if math.Abs(v) >= 100 {
			return fmt.Sprintf("%.0f%s", v, suffix)
		}
		return strconv.FormatFloat(v, 'g', 3, 64) + suffix
	}
}
