package load

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// evLoop drives a share of the closed model's connections from one goroutine
// with a level-triggered epoll set of its own, as wrk does from a thread. The
// goroutine engine pays, per request, a read that fails with EAGAIN, a park
// and a wake-up through the netpoller, and the runtime's syscall
// bookkeeping; on a small machine that is CPU taken from the service being
// measured. Here a request costs one
// write and one read (non-blocking, raw syscalls), plus a share of one
// epoll_wait for every connection that became readable at the same time.
//
// It serves plain-http HTTP/1.1 closed-model loads without a per-worker rate
// cap; TLS, HTTP/2, -q and the open model use the goroutine engine.
type evLoop struct {
	a      *Attacker
	sh     *shard
	epfd   int
	epFile *os.File        // epfd, registered with the runtime's netpoller
	epRaw  syscall.RawConn // to park on epfd's readiness
	wakefd int             // eventfd: written by interrupt to end the loop
	conns  []*evConn
	live   int       // connections still sending requests
	retry  []*evConn // failed connections waiting for their next request
	open   *openState
	events [128]unix.EpollEvent
	// addrs are the dialers' addresses, this loop's own copies: unix.Connect
	// writes its raw form into the Sockaddr it is given, so loops must not
	// share one.
	addrs []unix.Sockaddr
}

type evConn struct {
	id       int
	fd       int // -1 when not connected
	addr     int // dialer index the socket is connected to
	next     int // round-robin position in a.targets
	p        *prepared
	buf      []byte
	r, w     int
	parser   respParser
	out      []byte // unwritten rest of the request
	busy     bool   // a request is in flight
	dialing  bool
	reused   bool
	retried  bool
	gotBytes bool
	start    time.Time // when the request was sent (connect included)
	intended time.Time // open model: its scheduled start
	first    time.Time
	dialAt   time.Time
	connect  time.Duration
	deadline time.Time
}

// nextTarget is the connection's next request in round robin.
func (c *evConn) nextTarget(targets []*prepared) *prepared {
	p := targets[c.next]
	if c.next++; c.next == len(targets) {
		c.next = 0
	}
	return p
}

// errTimeout is a request that outlived --timeout in the event loop.
var errTimeout = fmt.Errorf("no complete response within --timeout: %w", os.ErrDeadlineExceeded)

// evLoopsFor returns event loops for the attacker's closed-model load, or
// nil when the load needs the goroutine engine.
func evLoopsFor(a *Attacker) []*evLoop {
	c := &a.cfg
	if c.HTTP2 || c.QPS > 0 || c.engine == engineGoroutines {
		return nil
	}
	addrs := make([]*net.TCPAddr, len(a.dialers))
	for i, d := range a.dialers {
		if d.tlsConfig != nil {
			return nil
		}
		ta, err := net.ResolveTCPAddr("tcp", d.addr)
		if err != nil {
			return nil // the goroutine engine reports the error per request
		}
		addrs[i] = ta
	}
	n := max(1, min(runtime.GOMAXPROCS(0), c.Concurrency))
	if c.Open() {
		n = max(1, min(runtime.GOMAXPROCS(0), c.MaxInflight))
	}
	var loops []*evLoop
	for i := range n {
		l, err := newEvLoop(a, a.shards[i%len(a.shards)], addrs)
		if err == nil && c.Open() {
			err = l.initOpen(i, n)
		}
		if err != nil {
			if l != nil {
				l.close()
			}
			for _, l := range loops {
				l.close()
			}
			return nil
		}
		for j := i; j < c.Concurrency && !c.Open(); j += n {
			l.conns = append(l.conns, &evConn{id: len(l.conns), fd: -1, next: j % len(a.targets), buf: make([]byte, readBuf)})
		}
		loops = append(loops, l)
	}
	return loops
}

func sockaddr(ta *net.TCPAddr) unix.Sockaddr {
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		return sa
	}
	sa := &unix.SockaddrInet6{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To16())
	return sa
}

func newEvLoop(a *Attacker, sh *shard, tcpAddrs []*net.TCPAddr) (*evLoop, error) {
	addrs := make([]unix.Sockaddr, len(tcpAddrs))
	for i, ta := range tcpAddrs {
		addrs[i] = sockaddr(ta)
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &ev)
	if err == nil {
		err = unix.SetNonblock(epfd, true)
	}
	if err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, err
	}
	l := &evLoop{a: a, sh: sh, epfd: epfd, wakefd: wfd, addrs: addrs, epFile: os.NewFile(uintptr(epfd), "perflab-epoll")}
	if l.epRaw, err = l.epFile.SyscallConn(); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// interrupt ends the loop at once (called by Attacker.stop).
func (l *evLoop) interrupt() {
	var one = [8]byte{1}
	_, _ = unix.Write(l.wakefd, one[:]) // fails only when the counter is full: already woken
}

func (l *evLoop) close() {
	for _, c := range l.conns {
		l.hangUp(c)
	}
	l.epFile.Close()
	unix.Close(l.wakefd)
	if l.open != nil {
		unix.Close(l.open.timerfd)
	}
}

// run serves the loop's connections until the load stops.
func (l *evLoop) run() {
	defer l.close()
	defer l.countUnfinished()
	l.live = len(l.conns)
	for _, c := range l.conns {
		l.startNext(c)
	}
	if l.open != nil {
		l.dispatch()
	}
	nextExpiry := time.Now().Add(l.a.cfg.Timeout / 100)
	for !l.finished() {
		n, err := l.poll()
		if err != nil {
			return
		}
		for _, ev := range l.events[:max(n, 0)] {
			switch {
			case ev.Fd == fdTimer:
				l.timerFired()
			case ev.Fd < 0:
				return // woken by interrupt
			default:
				l.handle(l.conns[ev.Fd], ev.Events)
			}
		}
		// Start the failed connections' next requests here, not from fail:
		// a refused connect fails at once, and would recurse.
		retry := l.retry
		l.retry = nil
		for _, c := range retry {
			l.after(c)
		}
		if l.open != nil {
			l.dispatch()
		}
		if now := time.Now(); now.After(nextExpiry) {
			l.expire(now)
			nextExpiry = now.Add(5 * time.Millisecond)
		}
	}
}

// poll waits for events without ever blocking in a system call: it asks
// epoll without waiting (a raw syscall the scheduler does not see) and, when
// nothing is ready, parks the goroutine on the epoll fd's own readiness in
// the runtime's netpoller. A blocking epoll_wait would be a long syscall:
// the runtime's monitor thread would take the processor away and then wake
// every 20µs, and on a small machine those context switches are CPU taken
// from the service being measured.
func (l *evLoop) poll() (int, error) {
	if n := l.pollNow(); n > 0 || len(l.retry) > 0 {
		return n, nil
	}
	// Wake at least every 10ms to expire requests past --timeout.
	l.epFile.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	var n int
	err := l.epRaw.Read(func(uintptr) bool {
		n = l.pollNow()
		return n > 0
	})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, nil
	}
	return n, err
}

func (l *evLoop) pollNow() int {
	r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

func (l *evLoop) finished() bool {
	if l.a.stopped.Load() {
		return true
	}
	if l.open != nil {
		return l.openFinished()
	}
	return l.live == 0
}

// after moves a connection on once its request ended: the next request in
// the closed model, the next waiting arrival (or idle) in the open model.
func (l *evLoop) after(c *evConn) {
	if l.open != nil {
		l.a.busy.Add(-1)
		l.free(c)
		return
	}
	l.startNext(c)
}

// startNext begins the connection's next request, or retires it when the
// load's request count is reached.
func (l *evLoop) startNext(c *evConn) {
	a := l.a
	if a.closing() || (a.cfg.Requests > 0 && a.issued.Add(1) > a.cfg.Requests) {
		l.hangUp(c)
		l.live--
		return
	}
	c.p = c.nextTarget(a.targets)
	c.start = time.Now()
	c.deadline = c.start.Add(a.cfg.Timeout)
	c.busy, c.retried, c.connect = true, false, 0
	l.send(c)
}

// send writes the request, connecting first if needed.
func (l *evLoop) send(c *evConn) {
	addr := c.p.dialIdx
	if c.fd >= 0 && c.addr != addr {
		l.hangUp(c)
	}
	if c.fd < 0 {
		if err := l.dial(c, addr); err != nil {
			l.fail(c, err)
		}
		return // the request is written once connected
	}
	c.out = c.p.raw
	c.gotBytes = false
	c.parser.reset(c.p.head)
	c.r, c.w = 0, 0
	l.flush(c)
}

func (l *evLoop) dial(c *evConn, addr int) error {
	sa := l.addrs[addr]
	family := unix.AF_INET
	if _, ok := sa.(*unix.SockaddrInet6); ok {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return os.NewSyscallError("socket", err)
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // an optimisation: the socket works without
	c.fd, c.addr, c.reused, c.dialing, c.dialAt = fd, addr, false, true, time.Now()
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}
	}
	if ports := l.a.cfg.LocalPorts; ports != nil {
		l.recordPort(ports, fd)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: int32(c.id)}
	return unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
}

// flush writes what is left of the request; a full socket buffer waits for
// EPOLLOUT.
func (l *evLoop) flush(c *evConn) {
	for len(c.out) > 0 {
		n, err := rawIO(syscall.SYS_WRITE, c.fd, c.out)
		if err == unix.EAGAIN {
			l.watch(c, unix.EPOLLIN|unix.EPOLLOUT)
			return
		}
		if err != nil {
			l.failOrRetry(c, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", err)})
			return
		}
		c.out = c.out[n:]
	}
}

func (l *evLoop) watch(c *evConn, events uint32) {
	ev := unix.EpollEvent{Events: events, Fd: int32(c.id)}
	// Fails only for a descriptor not in the set, which hangUp removed; the
	// request's --timeout still ends it.
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
}

func (l *evLoop) handle(c *evConn, events uint32) {
	if c.fd < 0 {
		return
	}
	if !c.busy {
		// Data or a hang-up on an idle keep-alive connection: nothing was
		// asked (net/http's "unsolicited response"); close it rather than
		// let the next request read it, or level-triggered epoll spin.
		l.hangUp(c)
		return
	}
	if c.dialing {
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if soErr, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soErr != 0 {
			if err == nil {
				err = unix.Errno(soErr)
			}
			l.fail(c, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)})
			return
		}
		c.dialing = false
		c.connect = time.Since(c.dialAt)
		if waiting(c.fd) {
			// The server wrote before it was asked (a response on
			// accept): whatever it says answers no request.
			l.fail(c, errUnsolicited)
			return
		}
		l.watch(c, unix.EPOLLIN)
		l.send(c)
		return
	}
	if len(c.out) > 0 && events&unix.EPOLLOUT != 0 {
		l.flush(c)
		if len(c.out) == 0 && c.fd >= 0 {
			l.watch(c, unix.EPOLLIN)
		}
	}
	if events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR) != 0 && c.fd >= 0 && c.busy {
		l.read(c)
	}
}

// read takes what the socket has and feeds the parser.
func (l *evLoop) read(c *evConn) {
	for {
		if c.r == c.w {
			c.r, c.w = 0, 0
		} else if c.w == len(c.buf) {
			if c.buf, c.r, c.w = makeRoom(c.buf, c.r, c.w); c.w == len(c.buf) {
				l.fail(c, errHeaderTooLarge)
				return
			}
		}
		space := len(c.buf) - c.w
		n, err := rawIO(syscall.SYS_READ, c.fd, c.buf[c.w:])
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			l.failOrRetry(c, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", err)})
			return
		case n == 0:
			if c.parser.eof() {
				l.complete(c)
			} else if c.gotBytes {
				l.fail(c, io.ErrUnexpectedEOF)
			} else {
				l.failOrRetry(c, io.EOF)
			}
			return
		}
		if !c.gotBytes {
			c.gotBytes, c.first = true, time.Now()
		}
		c.w += n
		used, done, perr := c.parser.feed(c.buf[c.r:c.w])
		c.r += used
		if perr != nil {
			l.fail(c, perr)
			return
		}
		if done {
			l.complete(c)
			return
		}
		if n < space {
			return // the socket is drained; epoll reports the rest
		}
	}
}

func (l *evLoop) complete(c *evConn) {
	if len(c.out) > 0 {
		// The server answered before it had the whole request (it did not
		// read it, or answered ahead of it): not a success, and the
		// connection is out of step.
		l.fail(c, errEarlyResponse)
		return
	}
	if c.r < c.w {
		// More bytes than the response: the server answers out of step
		// (ahead of requests, or twice), so this answer may be another's.
		l.fail(c, errExtraBytes)
		return
	}
	now := time.Now()
	o := outcome{start: c.start, sent: c.start, end: now, firstByte: c.first, connect: c.connect,
		status: c.parser.head.status, bodyBytes: c.parser.body, reqBytes: int64(len(c.p.raw)), target: c.p.idx}
	if l.open != nil {
		o.start = c.intended
	}
	l.sh.record(&o, l.a.t0)
	c.busy = false
	if !c.parser.keep() || l.a.cfg.DisableKeepAlive {
		l.hangUp(c)
	} else {
		c.reused = true
	}
	l.after(c)
}

// failOrRetry retries once on a fresh connection when a reused keep-alive
// connection was closed by the server before it answered (as net/http does).
func (l *evLoop) failOrRetry(c *evConn, err error) {
	if c.reused && !c.gotBytes && !c.retried && retryable(err) {
		c.retried = true
		l.hangUp(c)
		l.send(c)
		return
	}
	l.fail(c, err)
}

func (l *evLoop) fail(c *evConn, err error) {
	o := outcome{start: c.start, sent: c.start, end: time.Now(), connect: c.connect, err: err, reqBytes: int64(len(c.p.raw)), target: c.p.idx}
	if l.open != nil {
		o.start = c.intended
	}
	if l.a.stopped.Load() {
		l.sh.recordUnfinished(o.start, o.end) // cut off by the end of the load
	} else {
		l.sh.record(&o, l.a.t0)
	}
	c.busy = false
	l.hangUp(c)
	l.retry = append(l.retry, c)
}

// countUnfinished counts what the end of the load cut off: the requests in
// flight, and the open model's arrivals still waiting for a connection.
func (l *evLoop) countUnfinished() {
	now := time.Now()
	for _, c := range l.conns {
		if c.busy {
			start := c.start
			if l.open != nil {
				start = c.intended
			}
			l.sh.recordUnfinished(start, now)
			c.busy = false
		}
	}
	if o := l.open; o != nil {
		for _, due := range o.waiting[o.head:] {
			if now.Sub(due) > l.a.cfg.Timeout {
				l.drop(due, now) // expired while waiting: dropped, as it would have been
			} else {
				l.sh.recordUnfinished(due, now)
			}
		}
		o.waiting, o.head = o.waiting[:0], 0
	}
}

// expire fails the requests that outlived --timeout.
func (l *evLoop) expire(now time.Time) {
	for _, c := range l.conns {
		if c.busy && now.After(c.deadline) {
			l.fail(c, errTimeout)
		}
	}
}

func (l *evLoop) hangUp(c *evConn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // closing also removes it from the epoll set
		c.fd = -1
	}
	c.dialing, c.out = false, nil
}

// recordPort adds the local port connect bound fd to (one getsockname per
// connection, only when the load records its ports).
func (l *evLoop) recordPort(ports *PortSet, fd int) {
	switch sa, _ := unix.Getsockname(fd); a := sa.(type) {
	case *unix.SockaddrInet4:
		ports.Add(a.Port)
	case *unix.SockaddrInet6:
		ports.Add(a.Port)
	}
}

// waiting says whether the socket fd has bytes to read, without taking
// them.
func waiting(fd int) bool {
	var b [1]byte
	n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return err == nil && n > 0
}

// rawIO is read(2) or write(2) on a non-blocking socket without the runtime's
// syscall bookkeeping: it never blocks, so the scheduler need not know.
func rawIO(trap uintptr, fd int, b []byte) (int, error) {
	r, _, e := syscall.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
