package runfmt

// LoadResult is the outcome of one load: what `perflab load --json` writes and
// what run.json holds under "load". Latencies are in milliseconds.
type LoadResult struct {
	// Model is "closed" (fixed workers) or "open" (scheduled arrivals).
	Model     string  `json:"model"`
	Requests  int64   `json:"requests"`
	Errors    int64   `json:"errors"`
	DurationS float64 `json:"duration_s"`
	RPS       float64 `json:"rps"`
	// TargetRPS is the mean intended arrival rate in the open model.
	TargetRPS  float64          `json:"target_rps,omitempty"`
	Latency    Latency          `json:"latency_ms"`
	BytesIn    int64            `json:"bytes_in"`
	BytesOut   int64            `json:"bytes_out"`
	Status     map[string]int64 `json:"status_codes"`
	ErrorKinds map[string]int64 `json:"error_kinds"`
	// ErrorSamples holds the first error message seen of each kind.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// Phases holds the per-phase timings of the requests that measured them
	// (connect, ttfb, body), each as latency percentiles in milliseconds.
	Phases map[string]Latency `json:"phases,omitempty"`
	// Open is filled in the open model only.
	Open *OpenStats `json:"open,omitempty"`
	// Series is one point per second of the load.
	Series []SeriesPoint `json:"series"`
	// Histogram is the latency histogram (microseconds) encoded in HDR's
	// compressed base64 form; shards merge losslessly through it.
	Histogram string `json:"hdr_histogram"`
	// HistogramError says why Histogram (or a target's) is missing: it
	// could not be encoded.
	HistogramError string `json:"hdr_histogram_error,omitempty"`
	// Interrupted says the load was stopped early (signal or cancel); the
	// numbers cover what completed.
	Interrupted bool `json:"interrupted,omitempty"`
	// Start is when the load began (RFC 3339, UTC; --start-at's instant
	// when one was given): the per-second series count from it, and merge
	// aligns the shards' series by it.
	Start string `json:"start,omitempty"`
	// Shard is "i/N" when this result is one shard of a larger load.
	Shard  string   `json:"shard,omitempty"`
	Shards int      `json:"shards,omitempty"`
	URLs   []string `json:"urls,omitempty"`
	// Unfinished counts the requests still in flight (or, in the open
	// model, waiting for a connection) when the load ended, at -d or on
	// Ctrl-C: no figure above includes them. UnfinishedOldestMs is how long
	// the oldest of them had been waiting for its response.
	Unfinished         int64   `json:"unfinished,omitempty"`
	UnfinishedOldestMs float64 `json:"unfinished_oldest_ms,omitempty"`
	// Targets breaks the load down per target when it has several.
	Targets []TargetStats `json:"targets,omitempty"`
	// SLO is each --slo objective checked against this load.
	SLO []SLOCheck `json:"slo,omitempty"`
}

// Latency is a latency summary in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P10  float64 `json:"p10"`
	P25  float64 `json:"p25"`
	P50  float64 `json:"p50"`
	P75  float64 `json:"p75"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// OpenStats describes how faithfully the open model kept its schedule.
type OpenStats struct {
	// Scheduled is the number of arrivals the schedule asked for.
	Scheduled int64 `json:"scheduled"`
	// Late counts requests sent more than 1 ms after their intended time.
	Late int64 `json:"late"`
	// Dropped counts arrivals never sent because --max-inflight was reached
	// for longer than the request timeout; they are errors of kind "dropped".
	Dropped int64 `json:"dropped"`
	// MaxInflightHits counts arrivals that found every in-flight slot busy.
	MaxInflightHits int64 `json:"max_inflight_hits"`
	// SendLagMS is actual minus intended start, in milliseconds.
	SendLagMS Latency `json:"send_lag_ms"`
	// MaxInflight is the in-flight bound; Workers how many were used.
	MaxInflight int   `json:"max_inflight"`
	Workers     int64 `json:"workers"`
}

// SeriesPoint is one second of a run. T is seconds since the load began
// (the point covers [T, T+1)). Target fields are set by `perflab run`.
type SeriesPoint struct {
	T        float64 `json:"t"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`

	// Phases splits the second's mean latency into the requests' phases;
	// nil when no request of the second completed with its timings.
	Phases *PhaseMeans `json:"phases,omitempty"`
	// ScheduledPerS is the open model's arrivals due in the second (the
	// rate asked for, ramped by stages); nil in the closed model.
	ScheduledPerS *float64 `json:"scheduled_per_s,omitempty"`

	CPUCores      *float64 `json:"cpu_cores,omitempty"`
	RSSBytes      *int64   `json:"rss_bytes,omitempty"`
	ThrottledPct  *float64 `json:"throttled_pct,omitempty"`
	Threads       *int64   `json:"threads,omitempty"`
	GCCount       *int64   `json:"gc_count,omitempty"`
	HeapLiveBytes *int64   `json:"heap_live_bytes,omitempty"`
}

// PhaseMeans is the mean time of one second's requests in each phase, in
// ms, as k6 splits a request: blocked (the open model's send lag, from its
// intended start to its send), connecting (a new connection's connect),
// waiting (from the send to the first byte of the response, less the
// connect) and receiving (the rest of the response). The four add up to
// the mean latency of the Timed requests: those answered with a whole
// response, whatever its status.
type PhaseMeans struct {
	Timed        int64   `json:"timed"`
	BlockedMs    float64 `json:"blocked_ms"`
	ConnectingMs float64 `json:"connecting_ms"`
	WaitingMs    float64 `json:"waiting_ms"`
	ReceivingMs  float64 `json:"receiving_ms"`
}

// Ms is the four phases' sum: the mean latency of the timed requests.
func (p *PhaseMeans) Ms() float64 { return p.BlockedMs + p.ConnectingMs + p.WaitingMs + p.ReceivingMs }

// Merge adds q's requests to p, weighting each phase's mean by its count.
func (p *PhaseMeans) Merge(q PhaseMeans) {
	n := p.Timed + q.Timed
	if n == 0 {
		return
	}
	mean := func(a, b float64) float64 { return (a*float64(p.Timed) + b*float64(q.Timed)) / float64(n) }
	p.BlockedMs, p.ConnectingMs = mean(p.BlockedMs, q.BlockedMs), mean(p.ConnectingMs, q.ConnectingMs)
	p.WaitingMs, p.ReceivingMs = mean(p.WaitingMs, q.WaitingMs), mean(p.ReceivingMs, q.ReceivingMs)
	p.Timed = n
}
