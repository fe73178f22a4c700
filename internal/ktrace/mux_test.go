package ktrace

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	helpers["mux"] = muxHelper
}

// muxHelper is an HTTP service whose requests share one connection to its
// peer (KTRACE_PEER), opened before it says it is ready, as a gRPC
// channel shares its HTTP/2 connection: each request sends "ID\n" and
// waits for the line "ID" back, which one reader hands to it. Calls
// overlap on the connection.
func muxHelper() error {
	c, err := net.Dial("tcp", os.Getenv("KTRACE_PEER"))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	waiting := map[string]chan struct{}{}
	next := 0
	go func() {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			mu.Lock()
			ch := waiting[strings.TrimSpace(line)]
			delete(waiting, strings.TrimSpace(line))
			mu.Unlock()
			if ch != nil {
				close(ch)
			}
		}
	}()
	ln, err := listen()
	if err != nil {
		return err
	}
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		done := make(chan struct{})
		mu.Lock()
		next++
		id := fmt.Sprint(next)
		waiting[id] = done
		_, err := io.WriteString(c, id+"\n")
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			http.Error(w, "no answer", http.StatusGatewayTimeout)
			return
		}
		_, _ = io.WriteString(w, id)
	}))
}

// muxPeer answers each line after delay, concurrently, and keeps the time
// it held at least one call (busy) beside the sum of the calls' times.
type muxPeer struct {
	addr    netip.AddrPort
	writeMu sync.Mutex
	mu      sync.Mutex
	n, open int
	since   time.Time
	busy    time.Duration
	sum     time.Duration
}

func startMuxPeer(t *testing.T, delay time.Duration) *muxPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &muxPeer{addr: ln.Addr().(*net.TCPAddr).AddrPort()}
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

func (p *muxPeer) serve(c net.Conn, delay time.Duration) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		p.enter()
		go func() {
			start := time.Now()
			time.Sleep(delay) // planted: the peer's time to answer
			p.leave(time.Since(start))
			p.writeMu.Lock()
			defer p.writeMu.Unlock()
			_, _ = io.WriteString(c, line)
		}()
	}
}

func (p *muxPeer) enter() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open == 0 {
		p.since = time.Now()
	}
	p.open++
}

func (p *muxPeer) leave(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open--
	p.n++
	p.sum += d
	if p.open == 0 {
		p.busy += time.Since(p.since)
	}
}

// stats are the calls answered, the time the peer held at least one, and
// the sum of their times.
func (p *muxPeer) stats() (n int, busy, sum time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.busy, p.sum
}

// Calls overlapping on one connection opened before the session (a gRPC
// channel's): the connection is timed, the overlap is counted, its answers
// are not taken for calls, and the time it waited on the peer is a floor:
// at most the time the peer held a call, never the calls' sum.
func TestOverlappingCallsOnOneConnection(t *testing.T) {
	peer := startMuxPeer(t, 10*time.Millisecond)
	api, line := startHelper(t, "mux", "KTRACE_PEER="+peer.addr.String())
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{api.cmd.Process.Pid}, Ports: []uint16{port}})
	before := read(t, s)
	const clients, each = 8, 15
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			for range each {
				resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	w := read(t, s).Sub(before)
	out, ok := w.Outbound[peer.addr]
	if !ok {
		t.Fatalf("the connection open before the session was not timed: %+v", w.Outbound)
	}
	n, busy, sum := peer.stats()
	t.Logf("%d calls: the peer held one %v, their sum %v; the kernel: %+v", n, busy, sum, out)
	if n != clients*each {
		t.Fatalf("the peer answered %d calls, want %d", n, clients*each)
	}
	if out.Overlaps == 0 {
		t.Errorf("no overlap counted on a connection carrying %d calls at once", clients)
	}
	if out.Answers.Count >= uint64(n) {
		t.Errorf("%d answers of %d overlapping calls: turns taken for calls", out.Answers.Count, n)
	}
	if out.Turns.Count != out.Answers.Count || out.Turns.Time < out.Answers.Time {
		t.Errorf("turns %+v; want as many as the answers %+v, each from an earlier send", out.Turns, out.Answers)
	}
	// A floor of the calls' time, within the peer's busy time (plus the
	// loopback's round trips).
	if out.Turns.Time <= 0 || out.Turns.Time > busy+busy/10+time.Duration(out.Turns.Count)*time.Millisecond {
		t.Errorf("the connection waited on the peer %v; want more than 0 and at most the %v the peer held a call", out.Turns.Time, busy)
	}
	if out.Turns.Time > sum/2 {
		t.Errorf("the connection waited on the peer %v, over half the calls' sum %v: overlapping calls are not overlapping", out.Turns.Time, sum)
	}
	if out.Unread.Count < out.Answers.Count {
		t.Errorf("%d waits to be read of %d answers and %d bursts; want every answer's", out.Unread.Count, out.Answers.Count, out.Bursts)
	}
}
