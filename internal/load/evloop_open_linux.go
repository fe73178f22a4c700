package load

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openState is an event loop's share of an open-model schedule: arrivals
// k0, k0+step, k0+2*step... of the attacker's schedule, the loop's timerfd
// that wakes it for the next one, its idle connections, and the arrivals
// waiting for a connection when all are busy and MaxInflight is reached.
type openState struct {
	k, step  float64
	timerfd  int
	armed    time.Time // when the timerfd fires; zero if disarmed
	done     bool      // the schedule has no more arrivals for this loop
	idle     []*evConn
	waiting  []time.Time // FIFO of intended start times
	head     int         // first live entry of waiting
	maxConns int
}

// fdTimer marks the timerfd's events (connections use their index, the
// wake-up eventfd -1).
const fdTimer = -2

func (l *evLoop) initOpen(index, loops int) error {
	a := l.a
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: fdTimer}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		return err
	}
	k0 := float64(index)
	if a.cfg.Shards > 1 { // interleave the shards' arrivals too
		k0 += float64(a.cfg.Shard) / float64(a.cfg.Shards)
	}
	l.open = &openState{k: k0, step: float64(loops), timerfd: fd, maxConns: max(1, shareInt(a.cfg.MaxInflight, index, loops))}
	return nil
}

// dispatch starts every arrival that is due, expires arrivals that waited
// longer than the timeout, and arms the timer for the next arrival.
func (l *evLoop) dispatch() {
	o, a := l.open, l.a
	now := time.Now()
	for !o.done {
		at, ok := a.schedule.At(o.k)
		if !ok {
			o.done = true
			break
		}
		due := a.t0.Add(at)
		if due.After(now) {
			l.arm(due, now)
			break
		}
		o.k += o.step
		a.scheduled.Add(1)
		l.arrive(due)
	}
	for o.head < len(o.waiting) && now.Sub(o.waiting[o.head]) > a.cfg.Timeout {
		l.drop(o.waiting[o.head], now)
		o.head++
	}
	if o.head == len(o.waiting) {
		o.waiting, o.head = o.waiting[:0], 0
	}
}

// arrive sends an arrival on an idle connection, a new one, or queues it.
func (l *evLoop) arrive(due time.Time) {
	o := l.open
	if n := len(o.idle); n > 0 {
		c := o.idle[n-1]
		o.idle = o.idle[:n-1]
		l.startAt(c, due)
		return
	}
	if len(l.conns) < o.maxConns {
		c := &evConn{id: len(l.conns), fd: -1, next: len(l.conns) % len(l.a.targets), buf: make([]byte, readBuf)}
		l.conns = append(l.conns, c)
		l.a.nworkers.Add(1)
		l.startAt(c, due)
		return
	}
	l.a.inflightHits.Add(1)
	if len(o.waiting)-o.head >= queueLen {
		l.drop(due, time.Now())
		return
	}
	o.waiting = append(o.waiting, due)
}

// free gives a connection whose request ended the oldest waiting arrival,
// or makes it idle.
func (l *evLoop) free(c *evConn) {
	o := l.open
	now := time.Now()
	for o.head < len(o.waiting) {
		due := o.waiting[o.head]
		o.head++
		if now.Sub(due) > l.a.cfg.Timeout {
			l.drop(due, now)
			continue
		}
		l.startAt(c, due)
		return
	}
	o.waiting, o.head = o.waiting[:0], 0
	o.idle = append(o.idle, c)
}

func (l *evLoop) startAt(c *evConn, due time.Time) {
	a := l.a
	c.p = c.nextTarget(a.targets)
	c.intended, c.start = due, time.Now()
	c.deadline = c.start.Add(a.cfg.Timeout)
	c.busy, c.retried, c.connect = true, false, 0
	a.busy.Add(1)
	l.send(c)
}

func (l *evLoop) drop(due, now time.Time) {
	l.a.dropped.Add(1)
	l.sh.record(&outcome{start: due, end: now, err: errDropped, errKind: KindDropped, target: -1}, l.a.t0)
}

// arm sets the timerfd to fire at due (if it is not already set for then).
func (l *evLoop) arm(due, now time.Time) {
	o := l.open
	if o.armed.Equal(due) {
		return
	}
	d := max(due.Sub(now), time.Microsecond)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	// On failure the loop still wakes every 10 ms (poll) and dispatches late.
	_ = unix.TimerfdSettime(o.timerfd, 0, &spec, nil)
	o.armed = due
}

// timerFired clears the timerfd's expiration count.
func (l *evLoop) timerFired() {
	var b [8]byte
	_, _ = rawIO(syscall.SYS_READ, l.open.timerfd, b[:]) // the count; the wake-up is what matters
	l.open.armed = time.Time{}
}

// openFinished: the schedule is done and nothing is in flight or waiting.
func (l *evLoop) openFinished() bool {
	o := l.open
	return o.done && len(o.idle) == len(l.conns) && o.head == len(o.waiting)
}
