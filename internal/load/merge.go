package load

import (
	"fmt"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
)

// Merge combines the results of shards that ran at the same time (perflab
// load --shard i/N) into one. Counts add up; the latency summary comes from
// the merged HDR histograms, so its percentiles are exact. Per-second series
// and per-phase summaries carry no histograms: their counts add up and their
// percentiles are the highest of the shards' (an upper bound). The series
// are added second by second on one clock: each shard's is placed by its
// start (to the nearest second), so shards that started apart add up where
// their loads overlapped; started with one --start-at, they coincide.
func Merge(parts []*runfmt.LoadResult) (*runfmt.LoadResult, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	offsets, first, err := startOffsets(parts)
	if err != nil {
		return nil, err
	}
	var h *hdr.Histogram
	out := &runfmt.LoadResult{Model: parts[0].Model, Status: map[string]int64{}, ErrorKinds: map[string]int64{},
		ErrorSamples: map[string]string{}, Phases: map[string]runfmt.Latency{}}
	var shards []string
	for i, p := range parts {
		if p.HistogramError != "" {
			return nil, fmt.Errorf("result %d has no latency histogram: %s", i+1, p.HistogramError)
		}
		ph, err := hdr.Decode([]byte(p.Histogram))
		if err != nil {
			return nil, fmt.Errorf("result %d: hdr_histogram: %w", i+1, err)
		}
		if p.Model != out.Model {
			return nil, fmt.Errorf("result %d is a %s-model load, result 1 a %s-model one", i+1, p.Model, out.Model)
		}
		if h == nil {
			h = ph
		} else if dropped := h.Merge(ph); dropped > 0 {
			return nil, fmt.Errorf("result %d: %d values outside the histogram's range", i+1, dropped)
		}
		mergeCounts(out, p, offsets[i])
		if err := mergeTargets(out, p); err != nil {
			return nil, fmt.Errorf("result %d: targets: %w", i+1, err)
		}
		if p.Shard != "" {
			shards = append(shards, p.Shard)
		}
	}
	if out.DurationS > 0 {
		out.RPS = float64(out.Requests) / out.DurationS
	}
	out.Latency = Summarize(h)
	if out.Histogram, err = encode(h); err != nil {
		return nil, err
	}
	out.Shards = len(parts)
	out.Shard = strings.Join(shards, ",")
	if !first.IsZero() {
		out.Start = first.UTC().Format(time.RFC3339Nano)
	}
	return out, nil
}

// maxStartSpread is the furthest apart results may have started to be
// merged as shards of one load.
const maxStartSpread = time.Hour

// startOffsets is each result's start in seconds after the earliest one's
// (0 for a result that records no start, as older perflabs wrote them).
func startOffsets(parts []*runfmt.LoadResult) ([]float64, time.Time, error) {
	starts := make([]time.Time, len(parts))
	var first, last time.Time
	for i, p := range parts {
		t, err := time.Parse(time.RFC3339Nano, p.Start)
		if p.Start == "" || err != nil {
			continue
		}
		starts[i] = t
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if last.IsZero() || t.After(last) {
			last = t
		}
	}
	if d := last.Sub(first); d > maxStartSpread {
		return nil, first, fmt.Errorf("the results started %s apart (from %s to %s): not shards of one load", d.Round(time.Second), first.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	offsets := make([]float64, len(parts))
	for i, t := range starts {
		if !t.IsZero() {
			offsets[i] = t.Sub(first).Seconds()
		}
	}
	return offsets, first, nil
}

// StartSpread is how far apart the results started (0 when fewer than two
// record their start).
func StartSpread(parts []*runfmt.LoadResult) time.Duration {
	offsets, _, err := startOffsets(parts)
	if err != nil {
		return maxStartSpread
	}
	var spread float64
	for _, o := range offsets {
		spread = max(spread, o)
	}
	return time.Duration(spread * float64(time.Second))
}

func mergeCounts(out, p *runfmt.LoadResult, offset float64) {
	out.Requests += p.Requests
	out.Errors += p.Errors
	out.DurationS = max(out.DurationS, offset+p.DurationS)
	out.TargetRPS += p.TargetRPS
	out.BytesIn += p.BytesIn
	out.BytesOut += p.BytesOut
	out.Interrupted = out.Interrupted || p.Interrupted
	out.Unfinished += p.Unfinished
	out.UnfinishedOldestMs = max(out.UnfinishedOldestMs, p.UnfinishedOldestMs)
	for k, v := range p.Status {
		out.Status[k] += v
	}
	for k, v := range p.ErrorKinds {
		out.ErrorKinds[k] += v
		if _, ok := out.ErrorSamples[k]; !ok {
			out.ErrorSamples[k] = p.ErrorSamples[k]
		}
	}
	for _, u := range p.URLs {
		out.URLs = appendUnique(out.URLs, u)
	}
	for k, v := range p.Phases {
		out.Phases[k] = upperBound(out.Phases[k], v)
	}
	out.Series = mergeSeries(out.Series, p.Series, int(math.Round(offset)))
	if p.Open != nil {
		if out.Open == nil {
			out.Open = &runfmt.OpenStats{}
		}
		o := out.Open
		o.Scheduled += p.Open.Scheduled
		o.Late += p.Open.Late
		o.Dropped += p.Open.Dropped
		o.MaxInflightHits += p.Open.MaxInflightHits
		o.MaxInflight += p.Open.MaxInflight
		o.Workers += p.Open.Workers
		o.SendLagMS = upperBound(o.SendLagMS, p.Open.SendLagMS)
	}
}

// upperBound combines two summaries without their histograms.
func upperBound(a, b runfmt.Latency) runfmt.Latency {
	if a == (runfmt.Latency{}) {
		return b
	}
	minOf := min(a.Min, b.Min)
	return runfmt.Latency{Min: minOf, Mean: max(a.Mean, b.Mean), P10: max(a.P10, b.P10), P25: max(a.P25, b.P25),
		P50: max(a.P50, b.P50), P75: max(a.P75, b.P75), P90: max(a.P90, b.P90), P95: max(a.P95, b.P95),
		P99: max(a.P99, b.P99), P999: max(a.P999, b.P999), Max: max(a.Max, b.Max)}
}

// mergeSeries adds series b, which began shift seconds after a's start,
// to a.
func mergeSeries(a, b []runfmt.SeriesPoint, shift int) []runfmt.SeriesPoint {
	for len(a) < len(b)+shift {
		a = append(a, runfmt.SeriesPoint{T: float64(len(a))})
	}
	for i, p := range b {
		q := &a[i+shift]
		q.Requests += p.Requests
		q.Errors += p.Errors
		q.P50, q.P99, q.Max = max(q.P50, p.P50), max(q.P99, p.P99), max(q.Max, p.Max)
		if p.Phases != nil {
			if q.Phases == nil {
				q.Phases = &runfmt.PhaseMeans{}
			}
			q.Phases.Merge(*p.Phases)
		}
		if p.ScheduledPerS != nil {
			due := *p.ScheduledPerS
			if q.ScheduledPerS != nil {
				due += *q.ScheduledPerS
			}
			q.ScheduledPerS = &due
		}
	}
	return a
}
