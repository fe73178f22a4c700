package load

import (
	"errors"
	"sync"
	"time"
)

// maxNap bounds one pacer sleep so a stop is noticed promptly.
const maxNap = 50 * time.Millisecond

// minNap: arrivals due within this are sent at once rather than slept for.
const minNap = 20 * time.Microsecond

// queueLen bounds arrivals waiting for a free in-flight slot; beyond it an
// arrival is dropped (and counted) at once.
const queueLen = 1 << 16

var errDropped = errors.New("dropped: no free in-flight slot within --timeout (raise --max-inflight, or the service is slower than the rate)")

// runOpen sends arrivals at their scheduled times. A worker goroutine (with
// its own connection) serves one request at a time; workers are added while
// every one is busy, up to MaxInflight. Latency is measured from the intended
// time, so time an arrival spends waiting for a slot counts against the
// service, as it would for a real user.
func (a *Attacker) runOpen() {
	if a.runLoops() {
		return
	}
	jobs := make(chan time.Time, queueLen)
	var wg sync.WaitGroup
	spawn := func() {
		w := a.addWorker()
		a.nworkers.Add(1)
		wg.Go(func() {
			defer w.close()
			a.openLoop(w, jobs)
		})
	}
	for range min(a.cfg.Concurrency, a.cfg.MaxInflight) {
		spawn()
	}
	a.dispatch(jobs, spawn)
	close(jobs)
	wg.Wait()
}

func (a *Attacker) dispatch(jobs chan<- time.Time, spawn func()) {
	p, err := newPacer()
	if err != nil {
		p = &pacer{}
	}
	defer p.close()
	offset := 0.0
	if a.cfg.Shards > 1 { // interleave the shards' arrivals
		offset = float64(a.cfg.Shard) / float64(a.cfg.Shards)
	}
	for k := offset; !a.stopped.Load(); k++ {
		at, ok := a.schedule.At(k)
		if !ok {
			break
		}
		due := a.t0.Add(at)
		for d := time.Until(due); d > minNap && !a.stopped.Load(); d = time.Until(due) {
			p.sleep(d)
		}
		if a.stopped.Load() {
			break
		}
		a.scheduled.Add(1)
		if a.busy.Load()+int64(len(jobs)) >= a.nworkers.Load() {
			if a.nworkers.Load() < int64(a.cfg.MaxInflight) {
				spawn()
			} else {
				a.inflightHits.Add(1)
			}
		}
		select {
		case jobs <- due:
		default:
			a.recordDrop(due)
		}
	}
}

func (a *Attacker) openLoop(w *worker, jobs <-chan time.Time) {
	for due := range jobs {
		if a.stopped.Load() {
			if time.Since(due) > a.cfg.Timeout {
				a.recordDropOn(w.sh, due) // expired while waiting: dropped, as it would have been
			} else {
				w.sh.recordUnfinished(due, time.Now()) // a stop abandons queued arrivals
			}
			continue
		}
		a.busy.Add(1)
		if time.Since(due) > a.cfg.Timeout {
			a.recordDropOn(w.sh, due)
		} else {
			w.do(due)
		}
		a.busy.Add(-1)
	}
}

func (a *Attacker) recordDrop(due time.Time) { a.recordDropOn(a.shards[0], due) }

func (a *Attacker) recordDropOn(sh *shard, due time.Time) {
	a.dropped.Add(1)
	sh.record(&outcome{start: due, end: time.Now(), err: errDropped, errKind: KindDropped, target: -1}, a.t0)
}
