package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
)

func target(t *testing.T, raw string) []Target {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return []Target{{Method: "GET", URL: u, Header: http.Header{}}}
}

// forEachEngine runs a test with the event loop (the automatic choice for
// plain http) and with the goroutine engine.
func forEachEngine(t *testing.T, f func(t *testing.T, engine string)) {
	for _, e := range []string{"", engineGoroutines} {
		name := e
		if name == "" {
			name = "auto"
		}
		t.Run(name, func(t *testing.T) { f(t, e) })
	}
}

func attack(t *testing.T, cfg Config) *runfmt.LoadResult {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return a.Run(ctx)
}

func TestClosedModelCounts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello, world\n")
		}))
		defer srv.Close()
		r := attack(t, Config{engine: engine, Targets: target(t, srv.URL), Concurrency: 5, Requests: 500})
		if r.Requests != 500 || r.Errors != 0 || r.Status["200"] != 500 {
			t.Fatalf("requests %d errors %d status %v; want 500 OK", r.Requests, r.Errors, r.Status)
		}
		if r.BytesIn != 500*13 {
			t.Errorf("bytes in = %d; want %d", r.BytesIn, 500*13)
		}
		h, err := hdr.Decode([]byte(r.Histogram))
		if err != nil || h.TotalCount() != 500 {
			t.Fatalf("histogram: %v, count %v", err, h)
		}
		for _, p := range []string{"connect", "ttfb", "body"} {
			if _, ok := r.Phases[p]; !ok {
				t.Errorf("phase %s missing", p)
			}
		}
		if r.Latency.P50 <= 0 || r.Latency.P50 > r.Latency.P99 || r.Latency.P99 > r.Latency.Max {
			t.Errorf("latency summary out of order: %+v", r.Latency)
		}
		var sum int64
		for _, s := range r.Series {
			sum += s.Requests
		}
		if sum != 500 {
			t.Errorf("series sums to %d requests; want 500", sum)
		}
	})
}

func TestChunkedAndHeadAndStatus(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/fail" {
				w.WriteHeader(503)
				return
			}
			for i := 0; i < 3; i++ {
				io.WriteString(w, strings.Repeat("x", 1000))
				w.(http.Flusher).Flush()
			}
		}))
		defer srv.Close()
		r := attack(t, Config{engine: engine, Targets: target(t, srv.URL+"/chunked"), Concurrency: 2, Requests: 50})
		if r.Errors != 0 || r.BytesIn != 50*3000 {
			t.Errorf("chunked: errors %v, bytes %d; want 0 and %d", r.ErrorKinds, r.BytesIn, 50*3000)
		}
		r = attack(t, Config{engine: engine, Targets: target(t, srv.URL+"/fail"), Concurrency: 2, Requests: 20})
		if r.ErrorKinds[KindStatus5xx] != 20 || r.Status["503"] != 20 {
			t.Errorf("5xx: kinds %v status %v", r.ErrorKinds, r.Status)
		}
	})
}

// rawServer answers every connection with fn.
func rawServer(t *testing.T, fn func(c net.Conn)) string {
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
				fn(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// readRequest consumes one request header from c.
func readRequest(br *bufio.Reader) error {
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if l == "\r\n" {
			return nil
		}
	}
}

func TestFaultsAreCountedByKind(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		cases := []struct {
			name string
			fn   func(c net.Conn)
			kind string
		}{
			{"closes mid-response", func(c net.Conn) {
				readRequest(bufio.NewReader(c))
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
			}, KindClosed},
			{"malformed", func(c net.Conn) {
				readRequest(bufio.NewReader(c))
				io.WriteString(c, "garbage here\r\n\r\n")
			}, KindBadResponse},
			{"never ends", func(c net.Conn) {
				readRequest(bufio.NewReader(c))
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
				for i := 0; i < 50; i++ {
					if _, err := io.WriteString(c, "x"); err != nil {
						return
					}
					time.Sleep(20 * time.Millisecond) // planted: a body slower than the timeout
				}
			}, KindTimeout},
			{"resets", func(c net.Conn) {
				readRequest(bufio.NewReader(c))
				c.(*net.TCPConn).SetLinger(0)
			}, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				u := rawServer(t, tc.fn)
				start := time.Now()
				r := attack(t, Config{engine: engine, Targets: target(t, u), Concurrency: 2, Requests: 6, Timeout: 300 * time.Millisecond})
				if r.Errors != 6 {
					t.Fatalf("errors = %d (%v); want 6", r.Errors, r.ErrorKinds)
				}
				if tc.kind != "" && r.ErrorKinds[tc.kind] != 6 {
					t.Errorf("error kinds %v; want 6 %s", r.ErrorKinds, tc.kind)
				}
				if el := time.Since(start); el > 5*time.Second {
					t.Errorf("took %v: a fault must be bounded by the timeout", el)
				}
			})
		}
	})
}

func TestRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		r := attack(t, Config{engine: engine, Targets: target(t, "http://"+addr+"/"), Concurrency: 2, Requests: 10})
		if r.ErrorKinds[KindRefused] != 10 {
			t.Errorf("error kinds %v; want 10 refused", r.ErrorKinds)
		}
	})
}

func TestHugeBodyIsStreamedNotBuffered(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		const size = 256 << 20
		chunk := []byte(strings.Repeat("y", 64<<10))
		u := rawServer(t, func(c net.Conn) {
			br := bufio.NewReader(c)
			for readRequest(br) == nil {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
				for n := 0; n < size; n += len(chunk) {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}
		})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := attack(t, Config{engine: engine, Targets: target(t, u), Concurrency: 1, Requests: 2})
		runtime.ReadMemStats(&after)
		if r.Errors != 0 || r.BytesIn != 2*size {
			t.Fatalf("errors %v, bytes %d; want %d", r.ErrorKinds, r.BytesIn, 2*size)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("allocated %d MB reading 512 MB of bodies: bodies must not be buffered", grew>>20)
		}
	})
}

func TestDisableKeepAliveAndTLSAndHTTP2(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.Proto)
		if r.ProtoMajor == 2 {
			fmt.Fprint(w, " "+r.UserAgent())
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	r := attack(t, Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 20, Insecure: true, DisableKeepAlive: true})
	if r.Errors != 0 || conns.Load() != 20 {
		t.Errorf("TLS without keep-alive: errors %v, %d connections; want 0 and 20", r.ErrorSamples, conns.Load())
	}
	r = attack(t, Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 20})
	if r.ErrorKinds[KindTLS] != 20 {
		t.Errorf("self-signed certificate without --insecure: kinds %v; want 20 tls", r.ErrorKinds)
	}
	// Over HTTP/2 as over HTTP/1.1, no User-Agent unless the user sets one.
	r = attack(t, Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 20, Insecure: true, HTTP2: true})
	if r.Errors != 0 || r.BytesIn != 20*int64(len("HTTP/2.0 ")) {
		t.Errorf("HTTP/2 without a User-Agent: errors %v, bytes %d; want the server to see none", r.ErrorSamples, r.BytesIn)
	}
	tg := target(t, srv.URL)
	tg[0].Header = http.Header{"User-Agent": {"agent-h2"}}
	r = attack(t, Config{Targets: tg, Concurrency: 2, Requests: 20, Insecure: true, HTTP2: true})
	if r.Errors != 0 || r.BytesIn != 20*int64(len("HTTP/2.0 agent-h2")) {
		t.Errorf("HTTP/2 with -H User-Agent: errors %v, bytes %d", r.ErrorSamples, r.BytesIn)
	}
}

func TestStopKeepsWhatCompleted(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Millisecond) // planted: each request takes 1 ms
		}))
		defer srv.Close()
		a, err := New(Config{engine: engine, Targets: target(t, srv.URL), Concurrency: 4, Duration: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		defer cancel()
		start := time.Now()
		r := a.Run(ctx)
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("stop took %v", el)
		}
		if !r.Interrupted || r.Requests == 0 || r.Errors != 0 {
			t.Errorf("interrupted %v, requests %d, errors %v; want the completed requests and no errors", r.Interrupted, r.Requests, r.ErrorKinds)
		}
	})
}

func TestOpenModelRate(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer srv.Close()
		r := attack(t, Config{engine: engine, Targets: target(t, srv.URL), Rate: 400, Duration: 2 * time.Second})
		if r.Model != "open" || r.Open == nil || r.Open.Scheduled != 800 {
			t.Fatalf("model %s, open %+v; want 800 scheduled", r.Model, r.Open)
		}
		if r.Requests != 800 || r.Errors != 0 {
			t.Errorf("requests %d, errors %v; want 800 and none", r.Requests, r.ErrorKinds)
		}
		if r.Open.SendLagMS.Max <= 0 {
			t.Errorf("send lag not measured: %+v", r.Open.SendLagMS)
		}
	})
}

func TestOpenModelCountsWhatCouldNotBeSentOnTime(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(100 * time.Millisecond) // planted: each request takes 100 ms
		}))
		defer srv.Close()
		// 2 slots of 100ms each serve 20/s; 200/s arrive. Latency is measured from
		// the intended start, so queueing shows up in it.
		r := attack(t, Config{engine: engine, Targets: target(t, srv.URL), Rate: 200, Duration: time.Second, MaxInflight: 2, Concurrency: 2, Timeout: 500 * time.Millisecond})
		o := r.Open
		if o.MaxInflightHits == 0 || o.Dropped == 0 || r.ErrorKinds[KindDropped] != o.Dropped {
			t.Errorf("open stats %+v, kinds %v: want in-flight hits and drops counted", o, r.ErrorKinds)
		}
		if r.Requests+r.Unfinished != o.Scheduled || r.Unfinished > 2 {
			t.Errorf("requests %d + unfinished %d != scheduled %d: every arrival must be accounted for (the 2 slots' requests at most cut off by the end, -d plus --timeout)", r.Requests, r.Unfinished, o.Scheduled)
		}
		if r.Latency.Max < 300 {
			t.Errorf("max latency %.1fms: queueing behind busy slots must count", r.Latency.Max)
		}
	})
}

func TestTargetsRoundRobinAndShardMerge(t *testing.T) {
	var a, b atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			a.Add(1)
		} else {
			b.Add(1)
		}
	}))
	defer srv.Close()
	tg := append(target(t, srv.URL+"/a"), target(t, srv.URL+"/b")...)
	var parts []*runfmt.LoadResult
	for i := 0; i < 2; i++ {
		parts = append(parts, attack(t, Config{Targets: tg, Concurrency: 4, Requests: 100, Shard: i, Shards: 2}))
	}
	// -n 100 split over 2 shards: 50 each, alternating /a and /b.
	if a.Load() != 50 || b.Load() != 50 {
		t.Errorf("round robin: /a %d, /b %d; want 50 each", a.Load(), b.Load())
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 100 || m.Shards != 2 {
		t.Errorf("merged requests %d shards %d", m.Requests, m.Shards)
	}
	h0, _ := hdr.Decode([]byte(parts[0].Histogram))
	h1, _ := hdr.Decode([]byte(parts[1].Histogram))
	h0.Merge(h1)
	if want := float64(h0.ValueAtQuantile(99)) / 1000; m.Latency.P99 != want {
		t.Errorf("merged p99 %.3f; want exact %.3f", m.Latency.P99, want)
	}
	if _, err := Merge([]*runfmt.LoadResult{{Histogram: "garbage"}}); err == nil {
		t.Error("Merge of a corrupt histogram: want an error")
	}
}
