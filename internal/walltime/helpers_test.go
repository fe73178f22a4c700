package walltime

import (
	"bytes"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// plantedServer serves the planted waits of the tests:
//
//	/sleep  time.Sleep(5ms)
//	/lock   a global mutex held for 2ms of spinning
//	/down   a call to a downstream that answers after 5ms
//	/spin   1ms of spinning, no wait
type plantedServer struct {
	*httptest.Server
	mu   sync.Mutex
	down string
	// waited times each planted wait as the handler saw it, by path.
	waited map[string]*stopwatch
}

// stopwatch sums the durations of a planted wait.
type stopwatch struct{ n, ns atomic.Int64 }

func (s *stopwatch) since(start time.Time) {
	s.ns.Add(int64(time.Since(start)))
	s.n.Add(1)
}

// snapshot returns the waits so far and their total.
func (s *stopwatch) snapshot() (int64, time.Duration) { return s.n.Load(), time.Duration(s.ns.Load()) }

func spin(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

func newPlantedServer(t *testing.T) *plantedServer {
	t.Helper()
	s := &plantedServer{down: slowPeer(t, 5*time.Millisecond), waited: map[string]*stopwatch{"/sleep": {}, "/lock": {}, "/down": {}}}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sleep":
			sleepHandler(s.waited["/sleep"])
		case "/lock":
			s.lockHandler()
		case "/down":
			fetchDownstream(client, s.down, s.waited["/down"])
		case "/spin":
			spin(time.Millisecond)
		}
		w.Write([]byte("ok\n"))
	}))
	t.Cleanup(s.Close)
	return s
}

//go:noinline
func sleepHandler(sw *stopwatch) {
	start := time.Now()
	time.Sleep(5 * time.Millisecond) // planted: the handler's sleep
	sw.since(start)
}

//go:noinline
func (s *plantedServer) lockHandler() {
	start := time.Now()
	s.mu.Lock()
	s.waited["/lock"].since(start)
	spin(2 * time.Millisecond)
	s.mu.Unlock()
}

//go:noinline
func fetchDownstream(c *http.Client, url string, sw *stopwatch) {
	start := time.Now()
	defer sw.since(start)
	resp, err := c.Get(url)
	if err != nil {
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// slowPeer is a plain TCP server (not net/http, so its goroutines are not
// request goroutines) that answers each request after delay.
func slowPeer(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
					time.Sleep(delay) // planted: the server's time to answer
					if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// traceLoad traces clients keep-alive connections sending n requests each
// to url, and returns the trace.
func traceLoad(t *testing.T, url string, clients, n int) []byte {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func() {
		resp, err := client.Get(url)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get() // connect before tracing
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("tracing is already on: %v", err)
	}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range n {
				get()
			}
		})
	}
	wg.Wait()
	trace.Stop()
	return buf.Bytes()
}

var update = flag.Bool("update", false, "rewrite testdata/sleep.trace")

// TestWriteSampleTrace writes the trace the bad-input and fuzz tests start
// from, with -update.
func TestWriteSampleTrace(t *testing.T) {
	if !*update {
		t.Skip("-update rewrites testdata/sleep.trace")
	}
	s := newPlantedServer(t)
	data := traceLoad(t, s.URL+"/sleep", 2, 5)
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sleep.trace"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
