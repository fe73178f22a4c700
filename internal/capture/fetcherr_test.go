package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// heapProfileBytes is a real gzipped heap profile of this process.
func heapProfileBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFetchErrors(t *testing.T) {
	t.Parallel()
	heap := heapProfileBytes(t)
	hang := make(chan struct{})
	defer close(hang)
	mux := http.NewServeMux()
	mux.HandleFunc("/hang/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	})
	mux.HandleFunc("/html/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body>Welcome</body></html>"))
	})
	mux.HandleFunc("/gopprof/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		// What net/http/pprof's serveError wrote before Go 1.23 when seconds
		// exceeded the server's WriteTimeout (Go 1.26 extends the deadline).
		w.Header().Set("X-Go-Pprof", "1")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("profile duration exceeds server's WriteTimeout\n"))
	})
	mux.HandleFunc("/truncated/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) {
		w.Write(heap[:len(heap)/2])
	})
	mux.HandleFunc("/wrongtype/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		w.Write(heap)
	})
	mux.HandleFunc("/garbage/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello, this is not a profile\n"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()

	var c Client
	ctx := context.Background()
	for _, tc := range []struct {
		base  string
		name  Endpoint
		query string
		want  []string
		is    error
	}{
		{"/hang", "profile", "seconds=1", []string{"did not answer within 6s"}, ErrTimeout},
		{"/missing", "heap", "", []string{"404 Not Found", "net/http/pprof"}, ErrNoEndpoint},
		{"/html", "profile", "seconds=1", []string{"HTML page"}, ErrNoEndpoint},
		{"/gopprof", "profile", "seconds=1", []string{"HTTP 400", "profile duration exceeds server's WriteTimeout", "raise the service's http.Server WriteTimeout"}, nil},
		{"/truncated", "heap", "", []string{"truncated or corrupt gzip"}, nil},
		{"/wrongtype", "profile", "seconds=1", []string{"got a heap profile", "want a cpu profile"}, nil},
		{"/garbage", "heap", "", []string{"not a pprof profile"}, nil},
	} {
		start := time.Now()
		_, _, err := c.Fetch(ctx, ts.URL+tc.base, tc.name, tc.query)
		u := ts.URL + tc.base + "/debug/pprof/" + string(tc.name)
		t.Logf("%s: %v", tc.base, err)
		if err == nil {
			t.Errorf("Fetch(%s) = nil error, want %q", u, tc.want)
			continue
		}
		for _, w := range append(tc.want, u) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Fetch(%s) error %q, want it to contain %q", u, err, w)
			}
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("Fetch(%s) error %q is not %v", u, err, tc.is)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Fetch(%s) took %s", u, d)
		}
	}
}

// TestCPUProfileBusy gets net/http/pprof's own X-Go-Pprof refusal: a CPU
// profile of the process is already running.
func TestCPUProfileBusy(t *testing.T) {
	ts := newPprofServer(t)
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skipf("cannot start a CPU profile to occupy the profiler: %v", err)
	}
	defer pprof.StopCPUProfile()
	var c Client
	_, _, err := c.CPU(context.Background(), ts.URL, 1)
	if err == nil || !strings.Contains(err.Error(), "cpu profiling already in use") ||
		!strings.Contains(err.Error(), ts.URL+"/debug/pprof/profile?seconds=1") ||
		!strings.Contains(err.Error(), "another CPU profile") {
		t.Fatalf("CPU while another CPU profile runs: %v; want the server's message, the URL and a hint", err)
	}
}

func TestProbeErrors(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	var c Client
	err := c.Probe(context.Background(), ts.URL)
	if !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), ts.URL) {
		t.Errorf("Probe(404 server) = %v; want ErrNoEndpoint naming %s", err, ts.URL)
	}
	ts.Close()
	err = c.Probe(context.Background(), ts.URL)
	if !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), "nothing listens") {
		t.Errorf("Probe(closed server) = %v; want ErrNoEndpoint, nothing listens", err)
	}
	if err := c.Probe(context.Background(), "localhost:6060"); err == nil || !strings.Contains(err.Error(), "want http://host:port") {
		t.Errorf("Probe(localhost:6060) = %v; want a bad URL error", err)
	}
}

func TestTraceNotATrace(t *testing.T) {
	heap := heapProfileBytes(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(heap) }))
	defer ts.Close()
	var c Client
	_, err := c.Trace(context.Background(), ts.URL, 1)
	if err == nil || !strings.Contains(err.Error(), "did not return a Go execution trace") {
		t.Errorf("Trace(server of heap profiles) = %v; want not a trace", err)
	}
}

// TestProbeOnlyCmdline accepts a service that mounts some pprof handlers
// but not the index, and refuses one that answers everything with 200.
func TestProbeOnlyCmdline(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/cmdline", httppprof.Cmdline)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	var c Client
	if err := c.Probe(context.Background(), ts.URL); err != nil {
		t.Errorf("Probe(cmdline only) = %v, want nil", err)
	}
	catchAll := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok"))
	}))
	defer catchAll.Close()
	if err := c.Probe(context.Background(), catchAll.URL); !errors.Is(err, ErrNoEndpoint) {
		t.Errorf("Probe(catch-all 200 server) = %v, want ErrNoEndpoint", err)
	}
}
