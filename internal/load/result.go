package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
)

// result merges the shards into the load's record.
func (a *Attacker) result(interrupted bool) *runfmt.LoadResult {
	end := time.Unix(0, a.end.Load())
	elapsed := end.Sub(a.t0)
	if a.cfg.Open() && !interrupted { // the load lasts until its last response
		elapsed = time.Since(a.t0)
	}
	h := newHist()
	var phases [nPhases]*hdr.Histogram
	for i := range phases {
		phases[i] = newHist()
	}
	lag := newHist()
	r := &runfmt.LoadResult{Model: "closed", Status: map[string]int64{}, ErrorKinds: map[string]int64{},
		ErrorSamples: map[string]string{}, DurationS: elapsed.Seconds(), Interrupted: interrupted,
		Start: a.t0.UTC().Format(time.RFC3339Nano)}
	var late int64
	for _, s := range a.shards {
		s.mu.Lock()
		s.flushSecond(0)
		h.Merge(s.hist)
		for i := range phases {
			phases[i].Merge(s.phases[i])
		}
		if s.lag != nil {
			lag.Merge(s.lag)
		}
		for code, n := range s.status {
			if n > 0 {
				r.Status[strconv.Itoa(code)] += n
			}
		}
		for k, n := range s.errKinds {
			r.ErrorKinds[k] += n
			if _, ok := r.ErrorSamples[k]; !ok {
				r.ErrorSamples[k] = s.errSample[k]
			}
		}
		r.BytesIn += s.bytesIn
		r.BytesOut += s.bytesOut
		r.Requests += s.requests.Load()
		r.Errors += s.errors.Load()
		late += s.late
		r.Unfinished += s.unfinished
		r.UnfinishedOldestMs = max(r.UnfinishedOldestMs, msOf(s.oldest))
		s.mu.Unlock()
	}
	if elapsed > 0 {
		r.RPS = float64(r.Requests) / elapsed.Seconds()
	}
	r.Latency = Summarize(h)
	r.Phases = map[string]runfmt.Latency{}
	for i, ph := range phases {
		if ph.TotalCount() > 0 {
			r.Phases[phaseNames[i]] = Summarize(ph)
		}
	}
	var errs []error
	var err error
	if r.Histogram, err = encode(h); err != nil {
		errs = append(errs, err)
	}
	r.Series = toSeries(a.series.finish(), elapsed, a.schedule)
	for _, t := range a.targets {
		r.URLs = appendUnique(r.URLs, t.target.Method+" "+t.target.URL.String())
	}
	if r.Targets, err = a.targetStats(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		r.HistogramError = oneLine(err.Error()) // said, not dropped: merge refuses the result
	}
	if a.cfg.Shards > 1 {
		r.Shard = strconv.Itoa(a.cfg.Shard+1) + "/" + strconv.Itoa(a.cfg.Shards)
		r.Shards = 1
	}
	if a.cfg.Open() {
		r.Model = "open"
		r.TargetRPS = a.schedule.MeanRate()
		r.Open = &runfmt.OpenStats{Scheduled: a.scheduled.Load(), Late: late, Dropped: a.dropped.Load(),
			MaxInflightHits: a.inflightHits.Load(), SendLagMS: Summarize(lag), MaxInflight: a.cfg.MaxInflight,
			Workers: a.nworkers.Load()}
	}
	return r
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Summarize turns a histogram of microseconds into a summary in milliseconds.
func Summarize(h *hdr.Histogram) runfmt.Latency {
	if h.TotalCount() == 0 {
		return runfmt.Latency{}
	}
	ms := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
	return runfmt.Latency{
		Min: float64(h.Min()) / 1000, Mean: h.Mean() / 1000,
		P10: ms(10), P25: ms(25), P50: ms(50), P75: ms(75), P90: ms(90), P95: ms(95),
		P99: ms(99), P999: ms(99.9), Max: float64(h.Max()) / 1000,
	}
}

// histEncoding is how histograms are encoded (a variable so that a test
// can make Encode fail).
var histEncoding int32 = hdr.V2CompressedEncodingCookieBase

// encode encodes h in HDR's compressed base64 form.
func encode(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(histEncoding)
	if err != nil {
		return "", fmt.Errorf("encoding the latency histogram: %w", err)
	}
	return string(b), nil
}

// toSeries fills seconds without completions with zero points; with the
// open model's schedule, each second says the arrivals due in it.
func toSeries(secs []SecondStats, elapsed time.Duration, sched *Schedule) []runfmt.SeriesPoint {
	last := int(elapsed / time.Second)
	if elapsed%time.Second == 0 && last > 0 {
		last--
	}
	if n := len(secs); n > 0 && secs[n-1].Sec > last {
		last = secs[n-1].Sec
	}
	byS := map[int]SecondStats{}
	for _, s := range secs {
		byS[s.Sec] = s
	}
	out := make([]runfmt.SeriesPoint, 0, last+1)
	for i := 0; i <= last; i++ {
		s := byS[i]
		p := runfmt.SeriesPoint{T: float64(i), Requests: s.Requests, Errors: s.Errors,
			P50: msOf(s.P50), P99: msOf(s.P99), Max: msOf(s.Max), Phases: s.phases.means()}
		if sched != nil {
			due := sched.Due(time.Duration(i)*time.Second, time.Duration(i+1)*time.Second)
			p.ScheduledPerS = &due
		}
		out = append(out, p)
	}
	return out
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }
