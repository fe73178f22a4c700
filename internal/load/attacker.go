package load

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"perflab/internal/runfmt"
)

// Attacker runs one load. Create it with New, then call Run once; Progress may
// be called from another goroutine while it runs.
type Attacker struct {
	cfg         Config
	targets     []*prepared
	dialers     []*dialer
	dialerIndex map[string]int
	shards      []*shard
	series      *seriesCollector
	schedule    *Schedule // open model only

	ctx      context.Context
	t0       time.Time
	started  atomic.Int64 // unix nanos of t0, 0 while waiting for StartAt (read by Progress)
	end      atomic.Int64 // unix nanos when the load stopped
	stopped  atomic.Bool
	draining atomic.Bool  // closed model: Duration is over, in-flight requests may finish
	issued   atomic.Int64 // closed model with -n

	mu      sync.Mutex
	workers []*worker
	loops   []*evLoop

	scheduled, dropped, inflightHits atomic.Int64
	busy, nworkers                   atomic.Int64
}

// New validates cfg and prepares the requests.
func New(cfg Config) (*Attacker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	a := &Attacker{cfg: c, dialerIndex: map[string]int{}, series: newSeriesCollector()}
	for i := range c.Targets {
		p := prepare(&c.Targets[i], &c)
		p.idx = i
		if j, ok := a.dialerIndex[p.dial.addr]; ok {
			p.dial, p.dialIdx = a.dialers[j], j
		} else {
			p.dialIdx = len(a.dialers)
			a.dialerIndex[p.dial.addr] = p.dialIdx
			a.dialers = append(a.dialers, p.dial)
		}
		a.targets = append(a.targets, p)
	}
	n := max(1, min(4*runtime.GOMAXPROCS(0), c.Concurrency))
	if c.Open() {
		n = 4 * runtime.GOMAXPROCS(0)
		a.schedule = NewSchedule(c.Rate, c.Stages, c.Duration)
	}
	for range n {
		sh := newShard(a.series, c.Open(), len(c.Targets))
		sh.expect = c.ExpectStatus
		a.shards = append(a.shards, sh)
	}
	return a, nil
}

// Run drives the load until its duration, request count or schedule is done,
// or ctx is cancelled; the result covers every request that completed (and
// says Interrupted when ctx ended it early).
func (a *Attacker) Run(ctx context.Context) *runfmt.LoadResult {
	a.ctx = ctx
	t0, ok := a.waitStart(ctx)
	a.t0 = t0
	a.started.Store(t0.UnixNano())
	if !ok {
		a.end.Store(t0.UnixNano())
		return a.result(true)
	}
	stopWatch := make(chan struct{})
	go a.watch(ctx, stopWatch)
	if a.cfg.Open() {
		a.runOpen()
	} else {
		a.runClosed()
	}
	close(stopWatch)
	if a.end.Load() == 0 {
		a.end.Store(time.Now().UnixNano())
	}
	return a.result(ctx.Err() != nil)
}

// Started is when the load began (valid once Run has started).
func (a *Attacker) Started() time.Time { return a.t0 }

// watch stops the load at its duration (after the drain, if any) or when
// ctx ends. The open model runs until its last arrival is answered, but
// stops --timeout after the schedule's end at the latest: an arrival that
// waited for a slot still gets its whole --timeout once it has one, and
// against a stalled service the waves of them took a --timeout each (42 s
// for -d 5s); what is in flight or waiting then is unfinished.
func (a *Attacker) watch(ctx context.Context, done <-chan struct{}) {
	var timeout <-chan time.Time
	switch {
	case a.cfg.Open():
		t := time.NewTimer(a.schedule.Duration() + a.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	case a.cfg.Duration > 0:
		t := time.NewTimer(a.cfg.Duration)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-done:
		return
	case <-ctx.Done():
		a.stop()
		return
	case <-timeout:
		if a.cfg.Drain <= 0 || a.cfg.Open() {
			a.stop()
			return
		}
	}
	a.draining.Store(true) // no request starts; those in flight may finish
	t := time.NewTimer(a.cfg.Drain)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
		a.stop()
	case <-t.C:
		a.stop()
	}
}

// closing says whether no new request may start.
func (a *Attacker) closing() bool { return a.stopped.Load() || a.draining.Load() }

// stop ends the load: no new requests start, and in-flight ones are
// interrupted and not counted.
func (a *Attacker) stop() {
	if a.stopped.Swap(true) {
		return
	}
	a.end.Store(time.Now().UnixNano())
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, w := range a.workers {
		w.interrupt()
	}
	for _, l := range a.loops {
		l.interrupt()
	}
}

func (a *Attacker) addWorker() *worker {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := newWorker(a, len(a.workers))
	a.workers = append(a.workers, w)
	if a.stopped.Load() {
		w.interrupt()
	}
	return w
}

func (a *Attacker) runClosed() {
	if !a.runLoops() {
		a.runWorkers()
	}
}

// runLoops runs the load on event loops when it can (see evLoop).
func (a *Attacker) runLoops() bool {
	var wg sync.WaitGroup
	if loops := evLoopsFor(a); loops != nil {
		a.mu.Lock()
		a.loops = loops
		stopped := a.stopped.Load()
		a.mu.Unlock()
		for _, l := range loops {
			if stopped {
				l.interrupt()
			}
			wg.Go(l.run)
		}
		wg.Wait()
		return true
	}
	return false
}

func (a *Attacker) runWorkers() {
	var wg sync.WaitGroup
	for range a.cfg.Concurrency {
		w := a.addWorker()
		wg.Go(func() {
			defer w.close()
			a.closedLoop(w)
		})
	}
	wg.Wait()
}

func (a *Attacker) closedLoop(w *worker) {
	var interval time.Duration
	if a.cfg.QPS > 0 {
		interval = time.Duration(float64(time.Second) / a.cfg.QPS)
	}
	next := time.Now()
	for !a.closing() {
		if a.cfg.Requests > 0 && a.issued.Add(1) > a.cfg.Requests {
			return
		}
		if interval > 0 {
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
				if a.closing() {
					return
				}
			}
			next = next.Add(interval)
		}
		w.do(time.Time{})
	}
}

// Progress is a snapshot of a running load.
type Progress struct {
	Elapsed  time.Duration
	Planned  time.Duration // 0 when the load is bounded by a count
	Requests int64
	Errors   int64
	Count    int64 // requested count (-n), 0 if none
	P99ms    float64
	InFlight int64
	// Waiting is how long until StartAt, while the load waits for it.
	Waiting time.Duration
}

// Progress returns the counts so far.
func (a *Attacker) Progress() Progress {
	p := Progress{Planned: a.cfg.Duration, Count: a.cfg.Requests, P99ms: a.series.lastP99()}
	if t0 := a.started.Load(); t0 != 0 {
		p.Elapsed = time.Since(time.Unix(0, t0))
	} else if !a.cfg.StartAt.IsZero() {
		p.Waiting = max(0, time.Until(a.cfg.StartAt))
	}
	if a.schedule != nil {
		p.Planned = a.schedule.Duration()
		p.InFlight = a.busy.Load()
	}
	for _, s := range a.shards {
		p.Requests += s.requests.Load()
		p.Errors += s.errors.Load()
	}
	return p
}
