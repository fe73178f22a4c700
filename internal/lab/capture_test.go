package lab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"perflab/internal/load"
	"perflab/internal/pprofmux"
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
		Pprof: srv.URL, Profiler: ProfilerPprof, Trace: true,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	have := map[string]bool{}
	for _, p := range r.Profiles {
		have[p.Type] = true
		if p.Seconds <= 0 && p.Type != "goroutine-start" {
			t.Errorf("profile %s: seconds %g, want the window's length", p.Type, p.Seconds)
		}
	}
	for _, want := range []string{"cpu", "trace", "heap", "goroutine"} {
		if !have[want] {
			t.Errorf("run.json lists no %s profile: %+v (warnings %q)", want, r.Profiles, r.Warnings)
		}
	}
}
