package window

import (
	"slices"
	"time"

	"perflab/internal/service"
)

// Conns tells whether the load opens a connection per request (or the
// service closes its connections): the service's sockets listed as the
// warm-up starts and four times during it. done is closed once short is
// known.
type Conns struct {
	short bool
	done  chan struct{}
}

// WatchConns lists the sockets of the service's processes proc (nil:
// none) over a warm-up of that length (see churned).
func WatchConns(proc *service.Process, warmup time.Duration) *Conns {
	c := &Conns{done: make(chan struct{})}
	if proc == nil {
		close(c.done)
		return c
	}
	start := service.SocketInodes(proc.PIDs())
	step := warmup / 5
	go func() {
		defer close(c.done)
		var lists [][]uint64
		for range 4 {
			select {
			case <-time.After(step):
			case <-proc.Exited():
				return
			}
			lists = append(lists, service.SocketInodes(proc.PIDs()))
		}
		c.short = churned(start, lists)
	}()
	return c
}

// churned says whether the connections the service held during the
// warm-up (the sockets of lists not in start: start has its listening
// sockets) came and went: many more of them over the lists than it ever
// held at once, or none held at all. Keep-alive connections stay, the
// same ones at every look.
func churned(start []uint64, lists [][]uint64) bool {
	seen := map[uint64]bool{}
	most := 0
	for _, l := range lists {
		held := 0
		for _, ino := range l {
			if !slices.Contains(start, ino) {
				seen[ino] = true
				held++
			}
		}
		most = max(most, held)
	}
	return len(seen) == 0 || len(seen) >= 2*most
}

// Short says whether the service's connections churned over the
// warm-up, once it is known: the load opens connections per request (or
// the service closes them). Timing the accept backlog slows every system
// call of the machine (its tracepoints take each call through the
// kernel's slower exit path), so it is done only then (or without
// keep-alive). Nil-safe.
func (c *Conns) Short() bool {
	if c == nil {
		return false
	}
	<-c.done
	return c.short
}
