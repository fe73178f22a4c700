package load

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// worker sends requests one at a time over its own connections (one per
// target host) and reports each outcome to its shard.
type worker struct {
	a      *Attacker
	sh     *shard
	conns  []*h1conn // parallel to a.dialers
	h2     *h2client // HTTP/2 mode only
	next   int       // round-robin position in a.targets
	active atomic.Pointer[h1conn]
	out    outcome
}

func newWorker(a *Attacker, id int) *worker {
	w := &worker{a: a, sh: a.shards[id%len(a.shards)], next: id % len(a.targets)}
	w.conns = make([]*h1conn, len(a.dialers))
	if a.cfg.HTTP2 {
		w.h2 = newH2Client(&a.cfg)
	}
	return w
}

func (w *worker) close() {
	for _, c := range w.conns {
		c.close()
	}
	if w.h2 != nil {
		w.h2.close()
	}
}

// interrupt makes a blocked round trip return at once (used on stop).
func (w *worker) interrupt() {
	if c := w.active.Load(); c != nil {
		c.conn.SetDeadline(time.Unix(1, 0))
	}
	if w.h2 != nil {
		w.h2.cancel()
	}
}

func (w *worker) nextTarget() *prepared {
	p := w.a.targets[w.next]
	if w.next++; w.next == len(w.a.targets) {
		w.next = 0
	}
	return p
}

// do sends one request. intended is its scheduled start in the open model
// (the zero time in the closed model, where latency runs from the send).
func (w *worker) do(intended time.Time) {
	p := w.nextTarget()
	o := &w.out
	*o = outcome{reqBytes: int64(len(p.raw)), target: p.idx}
	if w.h2 != nil {
		w.h2.do(p, o)
	} else {
		w.doH1(p, o)
	}
	if !intended.IsZero() {
		o.start = intended
	}
	if o.err != nil && w.a.stopped.Load() {
		// Cut off by the end of the load, not the server's failure: counted
		// apart, so a service that never answers is not "0 requests, 0 errors".
		w.sh.recordUnfinished(o.start, o.end)
		return
	}
	w.sh.record(o, w.a.t0)
}

func (w *worker) doH1(p *prepared, o *outcome) {
	ci := p.dialIdx
	o.start = time.Now()
	o.sent = o.start
	c, err := w.conn(ci, o)
	if err != nil {
		o.err, o.end = err, time.Now()
		return
	}
	deadline := o.start.Add(w.a.cfg.Timeout)
	c.setDeadline(deadline, w.a.cfg.Timeout)
	var x exchange
	err = c.roundTrip(p.raw, p.head, &x)
	if err != nil && c.reused && !x.gotBytes && retryable(err) && !w.a.stopped.Load() {
		// The server closed an idle keep-alive connection before reading this
		// request (as net/http does, retry once on a fresh connection).
		w.drop(ci)
		if c, err = w.conn(ci, o); err == nil {
			c.setDeadline(deadline, w.a.cfg.Timeout)
			err = c.roundTrip(p.raw, p.head, &x)
		}
	}
	o.end = time.Now()
	o.status, o.bodyBytes, o.firstByte = x.status, x.bodyBytes, x.firstByte
	o.err = err
	if err != nil || !x.keep || w.a.cfg.DisableKeepAlive {
		w.drop(ci)
		return
	}
	c.reused = true
}

func retryable(err error) bool {
	return errors.Is(err, io.EOF) || Classify(err) == KindReset
}

// conn returns the worker's connection for dialer i, dialing if needed.
func (w *worker) conn(i int, o *outcome) (*h1conn, error) {
	if c := w.conns[i]; c != nil {
		return c, nil
	}
	t := time.Now()
	ctx, cancel := context.WithTimeout(w.a.ctx, w.a.cfg.Timeout)
	c, err := w.a.dialers[i].dial(ctx)
	cancel()
	if err != nil {
		return nil, err
	}
	o.connect = time.Since(t)
	w.a.cfg.LocalPorts.addConn(c.conn)
	w.conns[i] = c
	w.active.Store(c)
	if w.a.stopped.Load() {
		c.conn.SetDeadline(time.Unix(1, 0))
	}
	return c, nil
}

func (w *worker) drop(i int) {
	if c := w.conns[i]; c != nil {
		c.close()
		w.conns[i] = nil
	}
}
