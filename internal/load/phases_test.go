package load

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// TestSeriesPhasesAddUpToLatency: a server that answers its headers after
// 4 ms and its body 3 ms later, a connection per request: each second's
// phases hold the wait and the body where they were spent, a connect per
// request, nothing blocked in the closed model, and together they are the
// load's mean latency.
func TestSeriesPhasesAddUpToLatency(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(4 * time.Millisecond) // planted: the wait for the headers
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			time.Sleep(3 * time.Millisecond) // planted: the body's transfer
			io.WriteString(w, "body\n")
		}))
		defer srv.Close()
		r := attack(t, Config{engine: engine, Targets: target(t, srv.URL), Concurrency: 2, Requests: 100, DisableKeepAlive: true})
		var timed int64
		var sumMs float64
		for _, p := range r.Series {
			ph := p.Phases
			if ph == nil {
				continue
			}
			timed += ph.Timed
			sumMs += ph.Ms() * float64(ph.Timed)
			if ph.WaitingMs < 4 || ph.ReceivingMs < 3 || ph.ConnectingMs <= 0 || ph.BlockedMs != 0 {
				t.Errorf("second %g: phases %+v; want ≥4 ms waiting, ≥3 ms receiving, a connect, none blocked", p.T, *ph)
			}
		}
		if timed != r.Requests-r.Errors {
			t.Errorf("the series timed %d requests; want the %d answered", timed, r.Requests-r.Errors)
		}
		if mean := sumMs / float64(max(timed, 1)); math.Abs(mean-r.Latency.Mean) > 0.02*r.Latency.Mean {
			t.Errorf("the phases add up to %.3f ms per request; want the mean latency, %.3f ms", mean, r.Latency.Mean)
		}
	})
}

// TestScheduleDuePerSecond: a ramp from 0 to 200/s over 2 s, then 200/s
// for a second, puts 50, 150 and 200 arrivals in its three seconds; the
// series of an open load carries them.
func TestScheduleDuePerSecond(t *testing.T) {
	s := NewSchedule(0, []Stage{{Duration: 2 * time.Second, Target: 200}, {Duration: time.Second, Target: 200}}, 0)
	pts := toSeries(nil, 3*time.Second, s)
	want := []float64{50, 150, 200}
	if len(pts) != len(want) {
		t.Fatalf("%d points; want %d", len(pts), len(want))
	}
	for i, p := range pts {
		if p.ScheduledPerS == nil || math.Abs(*p.ScheduledPerS-want[i]) > 1e-9 {
			t.Errorf("second %d: scheduled %v; want %v", i, p.ScheduledPerS, want[i])
		}
	}
	if closed := toSeries(nil, time.Second, nil); closed[0].ScheduledPerS != nil {
		t.Errorf("the closed model's series says %v arrivals scheduled", *closed[0].ScheduledPerS)
	}
}

// TestMergeSeriesWeighsPhases: shards' phases merge weighted by their
// requests, and their scheduled arrivals add up.
func TestMergeSeriesWeighsPhases(t *testing.T) {
	due := func(v float64) *float64 { return &v }
	a := []runfmt.SeriesPoint{{Requests: 30, Phases: &runfmt.PhaseMeans{Timed: 30, WaitingMs: 2}, ScheduledPerS: due(25)}}
	b := []runfmt.SeriesPoint{{Requests: 10, Phases: &runfmt.PhaseMeans{Timed: 10, WaitingMs: 6, ConnectingMs: 4}, ScheduledPerS: due(25)}}
	got := mergeSeries(a, b, 0)[0]
	if ph := got.Phases; ph.Timed != 40 || ph.WaitingMs != 3 || ph.ConnectingMs != 1 || *got.ScheduledPerS != 50 {
		t.Errorf("merged %+v, scheduled %v; want 40 timed, 3 ms waiting, 1 ms connecting, 50 scheduled", *ph, *got.ScheduledPerS)
	}
}
