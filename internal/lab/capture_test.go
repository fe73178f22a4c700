package lab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"perflab/internal/load"
	"perflab/internal/pprofmux"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestCapturesRecordEveryProfile runs the CPU profile and the execution
// trace of the window in their goroutines while the main one records the
// load: each capture's profile and warning must reach run.json (run under
// -race: the captures and the run record share no unguarded state).
func TestCapturesRecordEveryProfile(t *testing.T) {
	mux := pprofmux.New()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	u, err := load.ParseURL(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Name:  "captures",
		Store: store.Store{Root: t.TempDir()},
		Load:  load.Config{Targets: []load.Target{{Method: "GET", URL: u, Header: http.Header{}}}, Concurrency: 2, Duration: time.Second},
		Pprof: srv.URL, Profiler: ProfilerChoice(runfmt.ProfilerPprof), Trace: true,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	have := map[runfmt.ProfileType]bool{}
	for _, p := range r.Profiles {
		have[p.Type] = true
		if p.Seconds <= 0 && !strings.HasSuffix(string(p.Type), "-start") { // snapshots before the window
			t.Errorf("profile %s: seconds %g, want the window's length", p.Type, p.Seconds)
		}
	}
	for _, want := range []runfmt.ProfileType{"cpu", "trace", "heap", "goroutine"} {
		if !have[want] {
			t.Errorf("run.json lists no %s profile: %+v (warnings %q)", want, r.Profiles, r.Warnings)
		}
	}
}

// TestHangingPprofEndpointIsBounded: an endpoint that answers its index
// (so it is chosen) but never sends a profile costs the run its documented
// timeouts at most: the snapshots before and after the window
// (SnapshotTimeout each), the check of whose endpoint it is (5 s), and the
// CPU profile and trace (the window plus 5 s, side by side).
func TestHangingPprofEndpointIsBounded(t *testing.T) {
	hang := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/debug/pprof/" {
			w.Write([]byte("Types of profiles available:"))
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // a header, then nothing: the body never ends
		case <-hang:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(hang)
	u, err := load.ParseURL(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Name:  "hanging-pprof",
		Store: store.Store{Root: t.TempDir()},
		Load:  load.Config{Targets: []load.Target{{Method: "GET", URL: u, Header: http.Header{}}}, Concurrency: 2, Duration: time.Second},
		Pprof: srv.URL, Profiler: ProfilerChoice(runfmt.ProfilerPprof), SnapshotTimeout: time.Second,
	}
	start := time.Now()
	res, _ := Run(context.Background(), cfg)
	// before (1 s) + owner check (5 s) + CPU profile (1 s window + 5 s) +
	// after (1 s) = 13 s, and slack for a busy machine; unbounded, each
	// snapshot would wait as long as the endpoint hangs.
	if took := time.Since(start); took > 25*time.Second {
		t.Errorf("the run took %s against a hanging pprof endpoint; want its timeouts, about 13 s", took)
	}
	if r := readRun(t, res); r.Load == nil || r.Load.Requests == 0 || len(r.Warnings) == 0 {
		t.Errorf("run: load %v, warnings %q; want the load measured and the missing profiles warned about", r.Load, r.Warnings)
	}
}
