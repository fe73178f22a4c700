package load

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
)

// Histogram bounds: latencies in microseconds from 1 µs to 1 hour, 3
// significant digits (0.1% error), as wrk2 does.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

func newHist() *hdr.Histogram    { return hdr.New(histMin, histMax, histDigits) }
func newSecHist() *hdr.Histogram { return hdr.New(histMin, histMax, 2) }

// Phases measured per request.
const (
	phaseConnect = iota
	phaseTTFB
	phaseBody
	nPhases
)

var phaseNames = [nPhases]string{"connect", "ttfb", "body"}

// shard accumulates the measurements of some of the workers. Workers are
// spread over a few shards so that neither a global lock nor one histogram per
// worker (an open-model load may run a thousand) is needed.
type shard struct {
	mu        sync.Mutex
	hist      *hdr.Histogram
	phases    [nPhases]*hdr.Histogram
	lag       *hdr.Histogram // open model: actual minus intended start
	sec       int
	secHist   *hdr.Histogram
	secReq    int64
	secErr    int64
	secPhases phaseSums
	status    [1000]int64 // by status code (parsed codes are 100-999)
	errKinds  map[string]int64
	errSample map[string]string
	bytesIn   int64
	bytesOut  int64
	late      int64
	// unfinished counts requests cut off by the end of the load; oldest
	// is the longest any of them had waited.
	unfinished int64
	oldest     time.Duration
	requests   atomic.Int64
	errors     atomic.Int64
	series     *seriesCollector
	expect     *StatusSet  // the statuses that are not errors (nil: 2xx and 3xx)
	targets    []targetAcc // per target, when the load has several
	_          [64]byte    // keep shards on separate cache lines
}

func newShard(sc *seriesCollector, open bool, ntargets int) *shard {
	s := &shard{
		hist: newHist(), secHist: newSecHist(), series: sc,
		errKinds: map[string]int64{}, errSample: map[string]string{},
		targets: newTargetAccs(ntargets),
	}
	for i := range s.phases {
		s.phases[i] = newHist()
	}
	if open {
		s.lag = newHist()
	}
	return s
}

// outcome is one finished request, as a worker reports it.
type outcome struct {
	start, end time.Time // latency is end-start; start is the intended time in the open model
	sent       time.Time // when the request was written (open model lag)
	firstByte  time.Time
	connect    time.Duration // >0 when a connection was opened for it
	status     int
	bodyBytes  int64
	reqBytes   int64
	err        error
	errKind    string
	target     int // index of the target in Attacker.targets; -1 for a dropped arrival
}

func micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < histMin {
		return histMin
	}
	if us > histMax {
		return histMax
	}
	return us
}

// recordUnfinished counts a request the end of the load cut off; start is
// when it was sent (intended, in the open model).
func (s *shard) recordUnfinished(start, end time.Time) {
	s.mu.Lock()
	s.unfinished++
	s.oldest = max(s.oldest, end.Sub(start))
	s.mu.Unlock()
}

// record adds one outcome. t0 is the start of the load.
func (s *shard) record(o *outcome, t0 time.Time) {
	sec := int(o.end.Sub(t0) / time.Second)
	s.mu.Lock()
	if sec != s.sec {
		s.flushSecond(sec)
	}
	s.bytesOut += o.reqBytes
	if o.lag() {
		s.lag.RecordValue(micros(o.sent.Sub(o.start)))
		if o.sent.Sub(o.start) > time.Millisecond {
			s.late++
		}
	}
	if o.connect > 0 {
		s.phases[phaseConnect].RecordValue(micros(o.connect))
	}
	kind := o.errKind
	var lat int64
	if o.err == nil {
		lat = micros(o.end.Sub(o.start))
		s.hist.RecordValue(lat)
		s.secHist.RecordValue(lat)
		s.status[min(max(o.status, 0), len(s.status)-1)]++
		s.bytesIn += o.bodyBytes
		if !o.firstByte.IsZero() {
			s.phases[phaseTTFB].RecordValue(micros(o.firstByte.Sub(o.sent)))
			s.phases[phaseBody].RecordValue(micros(o.end.Sub(o.firstByte)))
			s.secPhases.add(o)
		}
		if !s.expect.Has(o.status) {
			kind = statusKind(o.status)
		}
	} else if kind == "" {
		kind = Classify(o.err)
	}
	s.secReq++
	s.requests.Add(1)
	if kind != "" {
		s.secErr++
		s.errors.Add(1)
		s.errKinds[kind]++
		if _, ok := s.errSample[kind]; !ok {
			s.errSample[kind] = errText(o, kind)
		}
	}
	if s.targets != nil {
		s.recordTarget(o, lat, kind)
	}
	s.mu.Unlock()
}

func (o *outcome) lag() bool { return !o.sent.IsZero() && o.sent != o.start }

func errText(o *outcome, kind string) string {
	if o.err != nil {
		return o.err.Error()
	}
	if o.status > 0 {
		return fmt.Sprintf("the server answered %d (not an expected status: --expect-status)", o.status)
	}
	return kind
}

// flushSecond hands the finished second to the collector; s.mu is held.
func (s *shard) flushSecond(next int) {
	if s.secReq > 0 {
		s.secHist = s.series.add(s.sec, s.secHist, s.secReq, s.secErr, s.secPhases)
	}
	s.sec, s.secReq, s.secErr, s.secPhases = next, 0, 0, phaseSums{}
}

// seriesCollector merges the shards' per-second histograms into the
// per-second series. A second is closed two seconds after it ends, so memory
// holds a few histograms whatever the load's length.
type seriesCollector struct {
	mu     sync.Mutex
	open   map[int]*secAcc
	closed map[int]SecondStats
	spare  []*hdr.Histogram
	lastP  float64 // p99 of the newest closed second (progress display)
}

type secAcc struct {
	h        *hdr.Histogram
	req, err int64
	phases   phaseSums
}

// SecondStats is one second of the per-second series.
type SecondStats struct {
	Sec                int
	Requests, Errors   int64
	P50, P99, Max, P90 time.Duration
	phases             phaseSums
}

// phaseSums adds up the phases of a second's requests (see
// runfmt.PhaseMeans): n requests, and their time in each phase.
type phaseSums struct {
	n                                       int64
	blocked, connecting, waiting, receiving time.Duration
}

// add counts a request answered in full: its phases add up to its
// latency.
func (p *phaseSums) add(o *outcome) {
	p.n++
	p.blocked += o.sent.Sub(o.start)
	p.connecting += o.connect
	p.waiting += max(o.firstByte.Sub(o.sent)-o.connect, 0)
	p.receiving += o.end.Sub(o.firstByte)
}

func (p *phaseSums) merge(q phaseSums) {
	p.n += q.n
	p.blocked += q.blocked
	p.connecting += q.connecting
	p.waiting += q.waiting
	p.receiving += q.receiving
}

// means are the sums per request, in ms; nil without a request.
func (p phaseSums) means() *runfmt.PhaseMeans {
	if p.n == 0 {
		return nil
	}
	ms := func(d time.Duration) float64 { return msOf(d) / float64(p.n) }
	return &runfmt.PhaseMeans{Timed: p.n, BlockedMs: ms(p.blocked), ConnectingMs: ms(p.connecting), WaitingMs: ms(p.waiting), ReceivingMs: ms(p.receiving)}
}

func newSeriesCollector() *seriesCollector {
	return &seriesCollector{open: map[int]*secAcc{}, closed: map[int]SecondStats{}}
}

// add merges h into second sec and returns an empty histogram for reuse.
func (c *seriesCollector) add(sec int, h *hdr.Histogram, req, errs int64, phases phaseSums) *hdr.Histogram {
	c.mu.Lock()
	defer c.mu.Unlock()
	acc := c.open[sec]
	if acc == nil {
		if st, ok := c.closed[sec]; ok { // a straggler: counts only
			st.Requests += req
			st.Errors += errs
			st.phases.merge(phases)
			c.closed[sec] = st
			h.Reset()
			return h
		}
		acc = &secAcc{h: c.take()}
		c.open[sec] = acc
	}
	acc.h.Merge(h)
	acc.req += req
	acc.err += errs
	acc.phases.merge(phases)
	h.Reset()
	for s, a := range c.open {
		if s < sec-2 {
			c.close(s, a)
		}
	}
	return h
}

func (c *seriesCollector) take() *hdr.Histogram {
	if n := len(c.spare); n > 0 {
		h := c.spare[n-1]
		c.spare = c.spare[:n-1]
		return h
	}
	return newSecHist()
}

func (c *seriesCollector) close(sec int, a *secAcc) {
	us := func(q float64) time.Duration { return time.Duration(a.h.ValueAtQuantile(q)) * time.Microsecond }
	st := SecondStats{Sec: sec, Requests: a.req, Errors: a.err, P50: us(50), P90: us(90), P99: us(99),
		Max: time.Duration(a.h.Max()) * time.Microsecond, phases: a.phases}
	c.closed[sec] = st
	c.lastP = st.P99.Seconds() * 1000
	delete(c.open, sec)
	a.h.Reset()
	c.spare = append(c.spare, a.h)
}

// finish closes every open second and returns the series in order.
func (c *seriesCollector) finish() []SecondStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s, a := range c.open {
		c.close(s, a)
	}
	out := make([]SecondStats, 0, len(c.closed))
	for _, st := range c.closed {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sec < out[j].Sec })
	return out
}

// lastP99 is the p99 of the newest second that every shard has left (ms),
// or of the newest closed second; 0 before the first second ends.
func (c *seriesCollector) lastP99() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	newest := -1
	for s := range c.open {
		newest = max(newest, s)
	}
	if a, ok := c.open[newest-1]; ok && a.h.TotalCount() > 0 {
		return float64(a.h.ValueAtQuantile(99)) / 1000
	}
	return c.lastP
}
