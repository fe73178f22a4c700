package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// WriteLoadText writes the hey-style summary of a load: summary, response
// time histogram, latency distribution, per-phase timings, status codes and
// errors (and, for the open model, how well the schedule was kept).
func WriteLoadText(w io.Writer, r *runfmt.LoadResult) error {
	p := &printer{w: w}
	p.summary(r)
	if h, err := DecodeHistogram(r.Histogram); err == nil && h.TotalCount() > 0 {
		p.histogram(h)
	}
	if r.Requests-r.Errors > 0 {
		p.distribution(r.Latency)
	}
	p.phases(r.Phases)
	p.open(r)
	p.statuses(r.Status)
	p.errors(r)
	p.targets(r.Targets)
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func secs(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 4, 64) + " secs" }

func (p *printer) summary(r *runfmt.LoadResult) {
	title := "Summary:"
	if r.Interrupted {
		title = "Summary (interrupted: covers the requests that completed):"
	}
	p.f("\n%s\n", title)
	p.f("  Total:\t%s\n", strconv.FormatFloat(r.DurationS, 'f', 4, 64)+" secs")
	p.f("  Slowest:\t%s\n", secs(r.Latency.Max))
	p.f("  Fastest:\t%s\n", secs(r.Latency.Min))
	p.f("  Average:\t%s\n", secs(r.Latency.Mean))
	p.f("  Requests/sec:\t%.4f\n", r.RPS)
	if r.TargetRPS > 0 {
		p.f("  Target rate:\t%.4f\n", r.TargetRPS)
	}
	p.f("  \n")
	p.f("  Total data:\t%d bytes\n", r.BytesIn)
	if ok := r.Requests - r.Errors; ok > 0 {
		p.f("  Size/request:\t%d bytes\n", r.BytesIn/ok)
	}
	p.f("  Requests:\t%d (%d errors)\n", r.Requests, r.Errors)
	if r.Unfinished > 0 {
		p.f("  Unfinished:\t%d (in flight when the load ended, the oldest for %s; in no figure here)\n",
			r.Unfinished, secs(r.UnfinishedOldestMs))
	}
}

// histogram prints 11 linear buckets between fastest and slowest, as hey does.
func (p *printer) histogram(h *hdr.Histogram) {
	lo, hi := float64(h.Min()), float64(h.Max())
	const n = 11
	var counts [n]int64
	step := (hi - lo) / (n - 1)
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := n - 1
		if step > 0 {
			i = int((float64(b.From) - lo + step/2) / step)
		}
		counts[min(max(i, 0), n-1)] += b.Count
	}
	var most int64
	for _, c := range counts {
		most = max(most, c)
	}
	p.f("\nResponse time histogram:\n")
	for i, c := range counts {
		bar := 0
		if most > 0 {
			bar = int(40 * c / most)
		}
		p.f("  %.3f [%d]\t|%s\n", (lo+step*float64(i))/1e6, c, strings.Repeat("■", bar))
	}
}

func (p *printer) distribution(l runfmt.Latency) {
	p.f("\nLatency distribution:\n")
	for _, q := range []struct {
		name string
		v    float64
	}{{"10%", l.P10}, {"25%", l.P25}, {"50%", l.P50}, {"75%", l.P75}, {"90%", l.P90},
		{"95%", l.P95}, {"99%", l.P99}, {"99.9%", l.P999}, {"100%", l.Max}} {
		p.f("  %s in %s\n", q.name, secs(q.v))
	}
}

var phaseLabels = []struct{ key, label string }{
	{"connect", "DNS+dialup"}, {"ttfb", "resp wait"}, {"body", "resp read"},
}

func (p *printer) phases(ph map[string]runfmt.Latency) {
	if len(ph) == 0 {
		return
	}
	p.f("\nDetails (average, fastest, slowest, p99):\n")
	for _, l := range phaseLabels {
		if v, ok := ph[l.key]; ok {
			p.f("  %s:\t%s, %s, %s, %s\n", l.label, secs(v.Mean), secs(v.Min), secs(v.Max), secs(v.P99))
		}
	}
}

func (p *printer) open(r *runfmt.LoadResult) {
	o := r.Open
	if o == nil {
		return
	}
	p.f("\nSchedule (open model, latency measured from each request's intended start):\n")
	p.f("  Scheduled:\t%d arrivals at %.1f/s\n", o.Scheduled, r.TargetRPS)
	p.f("  Send lag:\tp50 %s, p99 %s, max %s\n", units.FormatMs(o.SendLagMS.P50), units.FormatMs(o.SendLagMS.P99), units.FormatMs(o.SendLagMS.Max))
	p.f("  Late (>1ms):\t%d\n", o.Late)
	p.f("  In flight:\tup to %d of --max-inflight %d; %d arrivals found every slot busy\n", o.Workers, o.MaxInflight, o.MaxInflightHits)
	if o.Dropped > 0 {
		p.f("  Dropped:\t%d (waited longer than --timeout for a free slot)\n", o.Dropped)
	}
}

func (p *printer) statuses(st map[string]int64) {
	if len(st) == 0 {
		return
	}
	p.f("\nStatus code distribution:\n")
	for _, k := range sortedKeys(st) {
		p.f("  [%s]\t%d responses\n", k, st[k])
	}
}

func (p *printer) errors(r *runfmt.LoadResult) {
	if len(r.ErrorKinds) == 0 {
		return
	}
	p.f("\nError distribution:\n")
	for _, k := range sortedKeys(r.ErrorKinds) {
		msg := r.ErrorSamples[k]
		if len(msg) > 120 {
			msg = msg[:120] + "..."
		}
		p.f("  [%d]\t%s: %s\n", r.ErrorKinds[k], k, msg)
	}
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DecodeHistogram decodes a load's encoded HDR histogram.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, fmt.Errorf("no histogram")
	}
	return hdr.Decode([]byte(s))
}
