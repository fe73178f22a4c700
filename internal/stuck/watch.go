package stuck

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/load"
	"perflab/internal/profiling"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/units"
)

// Bounds of the wait for requests to finish before the service is taken
// for stuck: a third of the window, between these.
const (
	stallMin = 1500 * time.Millisecond
	stallMax = 5 * time.Second
	// stallP99s is how many times the p99 of the requests that finished
	// the wait is at least: a slow service is not a stuck one.
	stallP99s = 4
	// stallTick is how often the window's progress is looked at.
	stallTick = 100 * time.Millisecond
)

// Config is what a stuck watch needs of the run it watches.
type Config struct {
	// Load is the window's load, Window its length.
	Load   load.Config
	Window time.Duration
	// SnapshotTimeout bounds the snapshot.
	SnapshotTimeout time.Duration
	// Log tells the user; Warn records a warning in the run.
	Log, Warn func(string)
	// Samples are the service's samples so far; nil when it is not
	// sampled.
	Samples func() []service.Sample
	// Profiles are the run's profiles: the service's pprof endpoint and
	// the profilers that read a runtime's stacks.
	Profiles *profiling.Set
	// PIDs are the service's processes.
	PIDs func(context.Context) []int
	// IsUser says whether a function is the user's; Sources finds the
	// service's source files.
	IsUser  func(name, file string) bool
	Sources func() *analysis.Sources
	// Finishing is the context of the work after the window.
	Finishing func(context.Context) (context.Context, context.CancelFunc)
	// Record records the snapshot in the run.
	Record func(*runfmt.Stuck)
}

// Watcher watches the window's load for requests that stop finishing.
type Watcher struct {
	c    Config
	ctx  context.Context
	prev func(*load.Attacker) func()

	mu      sync.Mutex
	started time.Time // the window's start, once known
	taken   bool
	quit    chan struct{}
	done    chan struct{} // closed when the watcher ends (its snapshot taken)
	once    sync.Once
}

// Watch returns the watcher of the next load whose start is told to its
// Watch method (the window's), which calls prev too, if set.
func Watch(ctx context.Context, c Config, prev func(*load.Attacker) func()) *Watcher {
	return &Watcher{c: c, ctx: ctx, prev: prev, quit: make(chan struct{}), done: make(chan struct{})}
}

// Watch starts watching the load a, as it starts, and returns the
// function to call when it ends.
func (w *Watcher) Watch(a *load.Attacker) func() {
	var done func()
	if w.prev != nil {
		done = w.prev(a)
	}
	w.mu.Lock()
	w.started = time.Now() // the load starts now (Started is set as it runs)
	w.mu.Unlock()
	go w.watch(a)
	return func() {
		w.Stop()
		if done != nil {
			done()
		}
	}
}

// Stop stops looking at the load's progress.
func (w *Watcher) Stop() { w.once.Do(func() { close(w.quit) }) }

// watch looks at the load's progress until it ends, and takes the
// snapshot when no request has finished for the stall time with some in
// flight.
func (w *Watcher) watch(a *load.Attacker) {
	defer close(w.done)
	tick := time.NewTicker(stallTick)
	defer tick.Stop()
	c := stallClock{last: -1, since: time.Now()}
	for {
		select {
		case <-w.quit:
			return
		case <-w.ctx.Done():
			return
		case now := <-tick.C:
			p := a.Progress()
			stalled := c.observe(now, p.Requests)
			n := w.inFlight(p)
			if n <= 0 || stalled < w.stall(p) {
				continue
			}
			why := runfmt.Stuck{Kind: runfmt.StuckNoRequestFinished, StalledS: float64(stalled.Milliseconds()) / 1000, InFlight: n}
			what := prose.StuckReason(&why).Text()
			if wait, ok := w.starved(now.Add(-stalled), now); ok {
				// Held off the CPU, not stuck: said once, and watched on.
				if !c.starvedSaid {
					w.c.Warn(fmt.Sprintf("%s while the service's threads waited %s for a CPU (other work on the machine, or its CPU budget, held it off): not taken for stuck", what, units.FormatMs(float64(wait.Milliseconds()))))
					c.starvedSaid = true
				}
				c.restart(now)
				continue
			}
			w.take(w.ctx, why)
			return
		}
	}
}

// starved says whether the service's threads spent, summed, at least half
// of [from, to] runnable and waiting for a CPU (the sampler's run-queue
// wait), and how long: requests that stop finishing then wait for the
// machine, not for a lock or a peer. False without a sampler.
func (w *Watcher) starved(from, to time.Time) (time.Duration, bool) {
	if w.c.Samples == nil {
		return 0, false
	}
	return starvedIn(w.c.Samples(), from, to)
}

// starvedIn is starved over the samples, judged on the part of [from, to]
// they cover.
func starvedIn(samples []service.Sample, from, to time.Time) (time.Duration, bool) {
	if len(samples) < 2 {
		return 0, false
	}
	lo, hi := from, to
	if first := samples[0].T; first.After(lo) {
		lo = first
	}
	if last := samples[len(samples)-1].T; last.Before(hi) {
		hi = last
	}
	if !hi.After(lo) {
		return 0, false
	}
	ts := service.Window(samples, from, to, 0, 0)
	wait := time.Duration(ts.RunqueueWaitSeconds * float64(time.Second))
	return wait, wait >= hi.Sub(lo)/2
}

// stallLate is how late a look at the load's progress may come before the
// time since the previous look is not counted as a stall: the watcher was
// held off the CPU (a busy machine), and so were the load's workers, whose
// count of finished requests is then stale.
const stallLate = 5 * stallTick

// stallClock measures how long no request has finished, from looks at
// the load's progress, counting only time the watcher saw.
type stallClock struct {
	last        int64     // requests finished at the last look
	since       time.Time // the last look that saw progress, or restarted the count
	lastLook    time.Time
	starvedSaid bool // a stall of the service held off the CPU was warned of
}

// restart counts a stall from now again.
func (c *stallClock) restart(now time.Time) { c.since = now }

// observe takes a look at now, with requests finished so far, and returns
// how long none has finished. A look that comes more than stallLate after
// the previous one restarts the count.
func (c *stallClock) observe(now time.Time, requests int64) time.Duration {
	late := !c.lastLook.IsZero() && now.Sub(c.lastLook) > stallLate
	c.lastLook = now
	if requests != c.last || late {
		c.last, c.since = requests, now
	}
	return now.Sub(c.since)
}

// stall is how long no request may finish before the service is taken
// for stuck: a third of the window within [stallMin, stallMax], and at
// least stallP99s times the p99 of those that finished.
func (w *Watcher) stall(p load.Progress) time.Duration {
	d := min(max(w.c.Window/3, stallMin), stallMax)
	return max(d, time.Duration(stallP99s*p.P99ms*float64(time.Millisecond)))
}

// inFlight is how many requests are under way: counted in the open
// model; in the closed one, every client has one (this shard's share of
// the clients; a config without a count has the load's default, 50).
func (w *Watcher) inFlight(p load.Progress) int64 {
	l := w.c.Load
	switch {
	case l.Open():
		return p.InFlight
	case l.QPS > 0: // a paced client may be between requests
		return 0
	}
	return int64(max(1, cmp.Or(l.Concurrency, 50)/max(1, l.Shards)))
}

// Finish ends the watch once the window is over (after Stop): it waits
// for a snapshot under way, and takes one if the window ended with more
// requests unfinished than finished and none was taken.
func (w *Watcher) Finish(r *runfmt.LoadResult, exited bool) {
	w.Stop()
	w.mu.Lock()
	started := !w.started.IsZero()
	w.mu.Unlock()
	if started {
		<-w.done
	}
	if w.taken || exited || r == nil || r.Unfinished == 0 || r.Unfinished <= r.Requests {
		return
	}
	// After Ctrl-C too: a hung service is when one presses it.
	ctx, cancel := w.c.Finishing(w.ctx)
	defer cancel()
	w.take(ctx, runfmt.Stuck{Kind: runfmt.StuckWindowEnded, InFlight: r.Unfinished, Finished: r.Requests})
}

// take takes the snapshot, within Config.SnapshotTimeout, and records it
// with why (its kind and figures).
func (w *Watcher) take(ctx context.Context, why runfmt.Stuck) {
	w.taken = true
	w.mu.Lock()
	at := time.Since(w.started)
	w.mu.Unlock()
	c := &w.c
	c.Log("requests stopped finishing (" + prose.StuckReason(&why).Text() + "): reading every thread's stack")
	ctx, cancel := context.WithTimeout(ctx, c.SnapshotTimeout)
	defer cancel()
	start := time.Now()
	st := &why
	st.AtS = at.Seconds()
	snaps := c.readStacks(ctx, st)
	st.Seconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		st.TimedOut = true
		st.Notes = append(st.Notes, fmt.Sprintf("the snapshot did not finish within %s (the time limit of snapshots): what was read before is shown", units.FormatDuration(c.SnapshotTimeout)))
	}
	c.groupStacks(st, snaps)
	c.Record(st)
}
