package load

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// TestPerTargetBreakdown loads three targets of one server (a fast one, a
// slow one, one that fails) and checks each target's requests, errors,
// status codes and latency, with either engine and both models.
func TestPerTargetBreakdown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			time.Sleep(20 * time.Millisecond) // planted: the slow target
		case "/fail":
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, "ok\n")
	}))
	defer srv.Close()
	var targets []Target
	for _, p := range []string{"/fast", "/slow", "/fail"} {
		u, _ := url.Parse(srv.URL + p)
		targets = append(targets, Target{Method: "GET", URL: u, Header: http.Header{}})
	}
	check := func(t *testing.T, r *runfmt.LoadResult) {
		t.Helper()
		if len(r.Targets) != 3 {
			t.Fatalf("%d targets in the breakdown, want 3: %+v", len(r.Targets), r.Targets)
		}
		var sum int64
		by := map[string]runfmt.TargetStats{}
		for _, ts := range r.Targets {
			sum += ts.Requests
			u, _ := url.Parse(ts.Target[len("GET "):])
			by[u.Path] = ts
		}
		if sum != r.Requests {
			t.Errorf("targets' requests add up to %d, the load's to %d", sum, r.Requests)
		}
		fast, slow, fail := by["/fast"], by["/slow"], by["/fail"]
		if fast.Errors != 0 || fast.Status["200"] != fast.Requests || slow.Status["200"] != slow.Requests {
			t.Errorf("fast %+v slow %+v: want only 200s", fast, slow)
		}
		if fail.Errors != fail.Requests || fail.Status["503"] != fail.Requests || fail.ErrorKinds[KindStatus5xx] != fail.Requests {
			t.Errorf("fail %+v: every request a 503 error", fail)
		}
		if slow.Latency.P50 < 19 || fast.Latency.P50 > slow.Latency.P50/2 {
			t.Errorf("p50 fast %.2f ms, slow %.2f ms: want slow >= 20 ms and fast well below", fast.Latency.P50, slow.Latency.P50)
		}
		if fast.Histogram == "" {
			t.Error("no per-target histogram")
		}
	}
	forEachEngine(t, func(t *testing.T, engine string) {
		check(t, attack(t, Config{engine: engine, Targets: targets, Concurrency: 3, Requests: 150}))
	})
	t.Run("open", func(t *testing.T) {
		check(t, attack(t, Config{Targets: targets, Rate: 150, Duration: time.Second}))
	})
	t.Run("merge", func(t *testing.T) {
		a := attack(t, Config{Targets: targets, Concurrency: 3, Requests: 60})
		b := attack(t, Config{Targets: targets, Concurrency: 3, Requests: 60})
		m, err := Merge([]*runfmt.LoadResult{a, b})
		if err != nil {
			t.Fatal(err)
		}
		check(t, m)
		if m.Targets[0].Requests != a.Targets[0].Requests+b.Targets[0].Requests {
			t.Errorf("merged %d requests for %s, want %d", m.Targets[0].Requests, m.Targets[0].Target, a.Targets[0].Requests+b.Targets[0].Requests)
		}
	})
	t.Run("one target", func(t *testing.T) {
		if r := attack(t, Config{Targets: targets[:1], Concurrency: 2, Requests: 20}); r.Targets != nil {
			t.Errorf("a single-target load has a breakdown: %+v", r.Targets)
		}
	})
}
