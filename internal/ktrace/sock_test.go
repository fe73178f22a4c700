package ktrace

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	helpers["api"] = apiHelper
	helpers["slowaccept"] = slowAcceptHelper
	helpers["nagle"] = nagleHelper
	helpers["loop"] = loopHelper
}

// listen opens a loopback listener and prints "ready PORT".
func listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	fmt.Printf("ready %d\n", ln.Addr().(*net.TCPAddr).Port)
	go func() { untilStdinCloses(); os.Exit(0) }()
	return ln, nil
}

// apiHelper is an HTTP service calling its peer (KTRACE_PEER, a line
// protocol) once per request, over one connection.
func apiHelper() error {
	ln, err := listen()
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var peer *bufio.ReadWriter
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if peer == nil {
			c, err := net.Dial("tcp", os.Getenv("KTRACE_PEER"))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			peer = bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
		}
		if _, err := peer.WriteString("q\n"); err != nil || peer.Flush() != nil {
			http.Error(w, "peer write failed", http.StatusBadGateway)
			return
		}
		answer, err := peer.ReadString('\n')
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, answer)
	}))
}

// slowPeer answers each line after delay; handled is its own total time
// from reading a question to writing the answer.
type slowPeer struct {
	addr    netip.AddrPort
	mu      sync.Mutex
	n       int
	handled time.Duration
}

func startSlowPeer(t *testing.T, delay time.Duration) *slowPeer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &slowPeer{addr: ln.Addr().(*net.TCPAddr).AddrPort()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go p.serve(c, delay)
		}
	}()
	return p
}

func (p *slowPeer) serve(c net.Conn, delay time.Duration) {
	r := bufio.NewReader(c)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		start := time.Now()
		time.Sleep(delay) // planted: the peer's time to answer
		p.mu.Lock()
		p.n++
		p.handled += time.Since(start)
		p.mu.Unlock()
		if _, err := io.WriteString(c, "a\n"); err != nil {
			return
		}
	}
}

func (p *slowPeer) stats() (int, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.handled
}

func helperPort(t *testing.T, line string) uint16 {
	t.Helper()
	f := fields(line)
	if len(f) != 2 || f[0] != "ready" {
		t.Fatalf("helper said %q, want ready PORT", line)
	}
	port, err := strconv.ParseUint(f[1], 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	return uint16(port)
}

// A service calling a peer that answers after 20 ms: the peer's time per
// round trip is 20 ms (and what the peer itself measured), and the
// service's own delay reading the answers is small.
func TestOutboundPeerTime(t *testing.T) {
	peer := startSlowPeer(t, 20*time.Millisecond)
	api, line := startHelper(t, "api", "KTRACE_PEER="+peer.addr.String())
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{api.cmd.Process.Pid}, Ports: []uint16{port}})
	client := &http.Client{Timeout: 10 * time.Second}
	const requests = 30
	for range requests {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("api answered %s", resp.Status)
		}
	}
	tot := read(t, s)
	out, ok := tot.Outbound[peer.addr]
	if !ok {
		t.Fatalf("no outbound figures for peer %v: %+v", peer.addr, tot.Outbound)
	}
	n, handled := peer.stats()
	if out.Answers.Count != uint64(n) || n != requests {
		t.Errorf("round trips = %d, the peer answered %d of %d requests", out.Answers.Count, n, requests)
	}
	if out.Overlaps != 0 || out.Turns.Count != out.Answers.Count {
		t.Errorf("one call at a time, each written at once: %d overlaps, %d turns of %d answers; want 0 and every answer's", out.Overlaps, out.Turns.Count, out.Answers.Count)
	}
	// The peer's sleep of 20 ms lasts longer on a busy machine: the
	// truth is the time the peer took, as it measured it.
	within(t, "peer time per round trip", out.Answers.Mean(), handled/time.Duration(n), 0.15)
	t.Logf("service's own delay reading the answer: %v per answer (%d)", out.Unread.Mean(), out.Unread.Count)
	if out.Unread.Count != uint64(n) || out.Unread.Mean() > out.Answers.Mean()/4 {
		t.Errorf("service's own delay = %v over %d answers, want %d answers and far below the peer's %v",
			out.Unread.Mean(), out.Unread.Count, n, out.Answers.Mean())
	}
	if in := tot.Inbound[port]; in.Requests != requests || in.Unread.Count != requests {
		t.Errorf("inbound on %d: %d requests, %d read, want %d", port, in.Requests, in.Unread.Count, requests)
	}
	if why := tot.Unmeasured[Backlog]; why != "not asked for" {
		t.Errorf("accept backlog without Config.AcceptBacklog: %q, want not asked for", why)
	}
}

// Connections open before the session, to a service whose port is not
// given: its listening port and both connections are taken up at Start.
func TestConnectionsOpenAtStart(t *testing.T) {
	peer := startSlowPeer(t, 5*time.Millisecond)
	api, line := startHelper(t, "api", "KTRACE_PEER="+peer.addr.String())
	port := helperPort(t, line)
	client := &http.Client{Timeout: 10 * time.Second}
	get := func() {
		t.Helper()
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get() // opens both connections
	s := startSession(t, Config{PIDs: []int{api.cmd.Process.Pid}})
	const requests = 10
	for range requests {
		get()
	}
	tot := read(t, s)
	if out := tot.Outbound[peer.addr]; out.Conns != 1 || out.Answers.Count != requests {
		t.Errorf("peer %v: %d connections, %d answers; want the open one and %d", peer.addr, out.Conns, out.Answers.Count, requests)
	}
	if in := tot.Inbound[port]; in.Conns != 1 || in.Requests != requests {
		t.Errorf("port %d: %d connections, %d requests; want the open one and %d", port, in.Conns, in.Requests, requests)
	}
	t.Logf("outbound %v inbound %v", tot.Outbound, tot.Inbound)
	if len(tot.Unmeasured) != 2 { // stacks and backlog: not asked for
		t.Errorf("unmeasured: %v", tot.Unmeasured)
	}
}

// slowAcceptHelper accepts a connection every 20 ms, answers its request
// line with the CLOCK_MONOTONIC time accept() returned, and closes it.
func slowAcceptHelper() error {
	ln, err := listen()
	if err != nil {
		return err
	}
	for {
		time.Sleep(20 * time.Millisecond) // planted: a slow accept loop
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		accepted := monotonic()
		if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			_, _ = fmt.Fprintf(c, "%d\n", accepted)
		}
		c.Close()
	}
}

// Connections waiting for a service that accepts slowly: the accept
// backlog is the time from connect() returning to accept() returning, as
// the clients and the service see it, whether accept() is seen at its own
// tracepoints or at every system call's return.
func TestAcceptBacklog(t *testing.T) {
	for _, way := range []struct {
		name     string
		tracefs  bool // the accept calls' tracepoints can be attached
		attached string
	}{{"at the accept calls' tracepoints", true, "on_accept4"}, {"at every system call's return", false, acceptAnyCall}} {
		t.Run(way.name, func(t *testing.T) {
			if !way.tracefs {
				withoutTracefs(t)
			} else {
				needSyscallTracepoints(t)
			}
			testAcceptBacklog(t, way.attached)
		})
	}
}

func testAcceptBacklog(t *testing.T, attached string) {
	svc, line := startHelper(t, "slowaccept")
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}, AcceptBacklog: true})
	for _, name := range []string{"on_accept4", "on_accept", acceptAnyCall} {
		if _, ok := s.progs[name]; ok != (name == attached || attached == "on_accept4" && name == "on_accept") {
			t.Errorf("program %s attached: %v; want accept() seen by %s", name, ok, attached)
		}
	}
	const clients, each = 4, 5
	var mu sync.Mutex
	var waited time.Duration
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range each {
				c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				connected := monotonic()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.WriteString(c, "r\n")
				answer, err := bufio.NewReader(c).ReadString('\n')
				c.Close()
				accepted, perr := strconv.ParseInt(answer[:max(len(answer)-1, 0)], 10, 64)
				if err != nil || perr != nil {
					t.Errorf("answer %q: %v %v", answer, err, perr)
					return
				}
				mu.Lock()
				waited += time.Duration(accepted) - connected
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	in := read(t, s).Inbound[port]
	if in.Backlog.Count != clients*each || in.Requests != clients*each {
		t.Errorf("backlog over %d connections and %d requests, want %d", in.Backlog.Count, in.Requests, clients*each)
	}
	within(t, "accept backlog", in.Backlog.Time, waited, 0.15)
	// The requests arrived before accept(): they wait to be read from
	// accept() on, a few µs each, not counting the backlog twice.
	if in.Unread.Count != clients*each || in.Unread.Time > in.Backlog.Time/20 {
		t.Errorf("waiting to be read %v over %d requests beside a backlog of %v: counted twice?", in.Unread.Time, in.Unread.Count, in.Backlog.Time)
	}
}

// nagleHelper answers each request line with headers and a body in two
// writes, with TCP_NODELAY if KTRACE_NODELAY=1.
func nagleHelper() error {
	nodelay := os.Getenv("KTRACE_NODELAY") == "1"
	return serveLines(func(c *net.TCPConn) error { return c.SetNoDelay(nodelay) }, func(c *net.TCPConn) error {
		if _, err := io.WriteString(c, nagleHeaders); err != nil {
			return err
		}
		_, err := io.WriteString(c, nagleBody)
		return err
	})
}

// serveLines listens (see listen), sets each connection up, and calls
// answer for each line it sends, until it closes or answer fails.
func serveLines(setup, answer func(c *net.TCPConn) error) error {
	ln, err := listen()
	if err != nil {
		return err
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		tc := c.(*net.TCPConn)
		if err := setup(tc); err != nil {
			return err
		}
		go func() {
			defer tc.Close()
			r := bufio.NewReader(tc)
			for {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
				if err := answer(tc); err != nil {
					return
				}
			}
		}()
	}
}

const (
	nagleHeaders = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	nagleBody    = "body\n"
)

// nagleGaps sends requests on one connection and returns the total time
// between the headers' arrival and the body's, as the client sees it.
func nagleGaps(t *testing.T, port uint16, requests int) time.Duration {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	var gaps time.Duration
	buf := make([]byte, len(nagleHeaders))
	for range requests {
		if _, err := io.WriteString(c, "GET\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		headers := time.Now()
		if _, err := io.ReadFull(c, buf[:len(nagleBody)]); err != nil {
			t.Fatal(err)
		}
		gaps += time.Since(headers)
	}
	return gaps
}

// A response written in two writes with Nagle on to a client that delays
// its ACKs: the body waits for the ACK of the headers (Linux: 40 ms). With
// TCP_NODELAY it does not.
func TestNagleStalls(t *testing.T) {
	const requests = 20
	t.Run("nagle", func(t *testing.T) {
		svc, line := startHelper(t, "nagle")
		port := helperPort(t, line)
		s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}})
		gaps := nagleGaps(t, port, requests)
		in := read(t, s).Inbound[port]
		t.Logf("%d stalls, %v each; client saw %v between headers and body", in.Stalls.Count, in.Stalls.Mean(), gaps)
		if in.NagleConns != 1 || in.NoDelayConns != 0 {
			t.Errorf("connections with Nagle on %d, with TCP_NODELAY %d, want 1 and 0", in.NagleConns, in.NoDelayConns)
		}
		if in.Stalls.Count < requests/2 {
			t.Errorf("%d stalls in %d responses, want most", in.Stalls.Count, requests)
		}
		within(t, "stall per response", in.Stalls.Mean(), 40*time.Millisecond, 0.3)
		within(t, "stalls in all", in.Stalls.Time, gaps, 0.15)
	})
	t.Run("nodelay", func(t *testing.T) {
		svc, line := startHelper(t, "nagle", "KTRACE_NODELAY=1")
		port := helperPort(t, line)
		s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}})
		gaps := nagleGaps(t, port, requests)
		in := read(t, s).Inbound[port]
		t.Logf("stalls: %+v, without Nagle %+v; client saw %v between headers and body", in.Stalls, in.NoDelayStalls, gaps)
		if in.NagleConns != 0 || in.NoDelayConns != 1 {
			t.Errorf("connections with Nagle on %d, with TCP_NODELAY %d, want 0 and 1", in.NagleConns, in.NoDelayConns)
		}
		if in.Stalls.Count != 0 || in.NoDelayStalls.Time > time.Millisecond {
			t.Errorf("stalls with TCP_NODELAY: %+v and %+v, want none", in.Stalls, in.NoDelayStalls)
		}
		if in.Requests != requests {
			t.Errorf("%d requests, want %d", in.Requests, requests)
		}
	})
}

// loopHelper is a single-threaded event loop (epoll, like a Node or asyncio
// service): each request line costs 5 ms of CPU and is answered with the
// time it took to handle (ns); requests arriving meanwhile wait unread.
func loopHelper() error {
	runtime.LockOSThread()
	ln, err := listen()
	if err != nil {
		return err
	}
	lf, err := ln.(*net.TCPListener).File()
	if err != nil {
		return err
	}
	lfd := int(lf.Fd())
	ep, err := unix.EpollCreate1(0)
	if err != nil {
		return err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, lfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lfd)}); err != nil {
		return err
	}
	events := make([]unix.EpollEvent, 16)
	buf := make([]byte, 512)
	for {
		n, err := unix.EpollWait(ep, events, -1)
		if err == unix.EINTR {
			continue
		} else if err != nil {
			return err
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd == lfd {
				c, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
				if err != nil {
					return err
				}
				if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, c, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c)}); err != nil {
					return err
				}
				continue
			}
			if m, err := unix.Read(fd, buf); err != nil || m == 0 {
				_ = unix.Close(fd)
				continue
			}
			start := time.Now()
			burn(5 * time.Millisecond)
			_, _ = unix.Write(fd, []byte(fmt.Sprintf("%d\n", time.Since(start))))
		}
	}
}

// burn runs on the CPU until the thread has used d of CPU time.
func burn(d time.Duration) {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	end := ts.Nano() + d.Nanoseconds()
	for ts.Nano() < end {
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	}
}

// One worker, 8 clients, 5 ms of CPU per request: a request waits unread
// while the worker serves the others; the wait is what the clients saw
// beyond the service's time.
func TestRequestsWaitingToBeRead(t *testing.T) {
	svc, line := startHelper(t, "loop")
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}})
	const clients, each = 8, 10
	var mu sync.Mutex
	var queued time.Duration
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			r := bufio.NewReader(c)
			for range each {
				start := time.Now()
				_, _ = io.WriteString(c, "r\n")
				answer, err := r.ReadString('\n')
				latency := time.Since(start)
				handled, perr := strconv.ParseInt(answer[:max(len(answer)-1, 0)], 10, 64)
				if err != nil || perr != nil {
					t.Errorf("answer %q: %v %v", answer, err, perr)
					return
				}
				mu.Lock()
				queued += latency - time.Duration(handled)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	in := read(t, s).Inbound[port]
	if in.Requests != clients*each || in.Unread.Count != clients*each {
		t.Errorf("%d requests, %d read, want %d", in.Requests, in.Unread.Count, clients*each)
	}
	within(t, "waiting to be read", in.Unread.Time, queued, 0.15)
}
