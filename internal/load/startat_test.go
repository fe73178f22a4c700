package load

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func TestParseStartAt(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026-05-04T10:00:00Z":           time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC),
		"2026-05-04T12:00:00.25+02:00":   time.Date(2026, 5, 4, 10, 0, 0, 250e6, time.UTC),
		"1777888800":                     time.Unix(1777888800, 0),
		" 1777888800.5 ":                 time.Unix(1777888800, 500e6),
		"2026-05-04T10:00:00.123456789Z": time.Date(2026, 5, 4, 10, 0, 0, 123456789, time.UTC),
	} {
		got, err := ParseStartAt(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseStartAt(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "tomorrow", "10:00", "2026-05-04 10:00:00", "1e9", "-5", "1.2.3", "99999999999999999999"} {
		if _, err := ParseStartAt(in); err == nil {
			t.Errorf("ParseStartAt(%q) accepted", in)
		}
	}
}

func TestCheckStartAt(t *testing.T) {
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{now.Add(time.Second), ""},
		{now.Add(24 * time.Hour), ""},
		{now, "in the past"},
		{now.Add(-time.Minute), "1m0s in the past"},
		{now.Add(25 * time.Hour), "at most 24h0m0s"},
	} {
		err := CheckStartAt(tc.at, now)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckStartAt(%v) = %v; want %q", tc.at, err, tc.want)
		}
	}
}

// FuzzParseStartAt: any input parses or is refused without panicking,
// and what parses formats back to the same instant.
func FuzzParseStartAt(f *testing.F) {
	for _, s := range []string{"2026-05-04T10:00:00Z", "1777888800", "1777888800.999999999", "0", ".", "2026-05-04T10:00:00+25:00", "9999-12-31T23:59:59Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, err := ParseStartAt(s)
		if err != nil {
			return
		}
		again, err := ParseStartAt(at.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(at) {
			t.Fatalf("ParseStartAt(%q) = %v; formatted back: %v, %v", s, at, again, err)
		}
	})
}

// TestStartAtWaitsAndCountsFromIt: no request is sent before StartAt, and
// the result counts from it.
func TestStartAtWaitsAndCountsFromIt(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		var mu sync.Mutex
		var first time.Time
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			mu.Unlock()
		}))
		defer srv.Close()
		at := time.Now().Add(400 * time.Millisecond).Truncate(time.Millisecond)
		r := attack(t, Config{Targets: target(t, srv.URL), Rate: 200, Duration: time.Second, StartAt: at, engine: engine})
		mu.Lock()
		defer mu.Unlock()
		if first.Before(at) || r.Requests == 0 {
			t.Errorf("first request at %v, %d requests; want none before %v", first, r.Requests, at)
		}
		if start, err := time.Parse(time.RFC3339Nano, r.Start); err != nil || !start.Equal(at) {
			t.Errorf("result start %q; want %v", r.Start, at.UTC())
		}
	})
}

// TestStartAtInterrupted: Ctrl-C while waiting ends the load at once,
// interrupted, with nothing sent.
func TestStartAtInterrupted(t *testing.T) {
	a, err := New(Config{Targets: target(t, "http://127.0.0.1:1/"), Rate: 10, StartAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *runfmt.LoadResult)
	go func() { done <- a.Run(ctx) }()
	labtest.Until(10*time.Second, func() bool { return a.Progress().Waiting > 0 })
	if w := a.Progress().Waiting; w < 59*time.Minute {
		t.Errorf("Progress().Waiting = %v; want about an hour", w)
	}
	cancel()
	select {
	case r := <-done:
		if !r.Interrupted || r.Requests != 0 {
			t.Errorf("result %+v; want interrupted with no request", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with the context")
	}
}

// TestMergeAlignsStarts: two shards that started two seconds apart add up
// where their loads overlapped; started together, second by second.
func TestMergeAlignsStarts(t *testing.T) {
	part := func(start string, reqs ...int64) *runfmt.LoadResult {
		var s []runfmt.SeriesPoint
		var total int64
		for i, n := range reqs {
			s = append(s, runfmt.SeriesPoint{T: float64(i), Requests: n})
			total += n
		}
		h := newHist()
		h.RecordValue(1000)
		enc, err := encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return &runfmt.LoadResult{Model: "open", Requests: total, DurationS: float64(len(reqs)), Series: s, Start: start, Histogram: enc}
	}
	m, err := Merge([]*runfmt.LoadResult{part("2026-05-04T10:00:02Z", 100, 100), part("2026-05-04T10:00:00Z", 100, 100, 100, 100)})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, p := range m.Series {
		got = append(got, p.Requests)
	}
	if b, _ := json.Marshal(got); string(b) != "[100,100,200,200]" || m.Start != "2026-05-04T10:00:00Z" || m.DurationS != 4 {
		t.Errorf("merged series %s, start %s, duration %v; want [100,100,200,200] from 10:00:00 over 4 s", b, m.Start, m.DurationS)
	}
	if d := StartSpread([]*runfmt.LoadResult{part("2026-05-04T10:00:02Z", 1), part("2026-05-04T10:00:00.5Z", 1)}); d != 1500*time.Millisecond {
		t.Errorf("StartSpread = %v; want 1.5s", d)
	}
	if _, err := Merge([]*runfmt.LoadResult{part("2026-05-04T10:00:00Z", 1), part("2026-05-04T12:00:00Z", 1)}); err == nil {
		t.Error("merged results two hours apart")
	}
}
