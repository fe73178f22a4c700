package load

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{{"500", 500}, {"500/s", 500}, {"30000/1m", 500}, {"2/100ms", 20}, {" 7.5 ", 7.5}} {
		got, err := ParseRate(tc.in)
		if err != nil || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "abc", "NaN", "Inf", "5/0s", "5/x", "1e9"} {
		if _, err := ParseRate(bad); err == nil || !strings.Contains(err.Error(), "rate") {
			t.Errorf("ParseRate(%q): want an error naming the rate, got %v", bad, err)
		}
	}
}

func TestParseStages(t *testing.T) {
	st, err := ParseStages("30s:10, 3m:100,30s:0")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{30 * time.Second, 10}, {3 * time.Minute, 100}, {30 * time.Second, 0}}
	if len(st) != len(want) {
		t.Fatalf("got %v", st)
	}
	for i := range want {
		if st[i] != want[i] {
			t.Errorf("stage %d = %v; want %v", i, st[i], want[i])
		}
	}
	for _, bad := range []string{"", "30s", "30s:", ":10", "0s:10", "-1s:5", "30s:-1", "30s:x", "30s:10,,1m:5", "1000h:1"} {
		if _, err := ParseStages(bad); err == nil {
			t.Errorf("ParseStages(%q): want an error", bad)
		}
	}
}

func TestScheduleConstant(t *testing.T) {
	s := NewSchedule(1000, nil, 2*time.Second)
	if s.Total() != 2000 {
		t.Fatalf("Total = %d; want 2000", s.Total())
	}
	for _, k := range []float64{0, 1, 999, 1999} {
		at, ok := s.At(k)
		want := time.Duration(k) * time.Millisecond
		if !ok || absDur(at-want) > time.Microsecond {
			t.Errorf("At(%v) = %v, %v; want %v", k, at, ok, want)
		}
	}
	if _, ok := s.At(2000); ok {
		t.Error("At(2000) should be past the end")
	}
}

func TestScheduleRamp(t *testing.T) {
	// 0 -> 100/s over 10s: 500 arrivals; arrival k at t = sqrt(2k/10).
	s := NewSchedule(0, []Stage{{10 * time.Second, 100}, {5 * time.Second, 100}, {10 * time.Second, 0}}, 0)
	if got := s.Total(); got != 500+500+500 {
		t.Fatalf("Total = %d; want 1500", got)
	}
	for _, k := range []float64{1, 50, 250, 499} {
		at, _ := s.At(k)
		want := time.Duration(math.Sqrt(2*k/10) * float64(time.Second))
		if absDur(at-want) > 10*time.Microsecond {
			t.Errorf("At(%v) = %v; want %v", k, at, want)
		}
	}
	prev := time.Duration(-1)
	for k := 0.0; k < 1500; k++ {
		at, ok := s.At(k)
		if !ok || at < prev {
			t.Fatalf("At(%v) = %v, %v: not increasing after %v", k, at, ok, prev)
		}
		prev = at
	}
	if at, _ := s.At(1000); absDur(at-15*time.Second) > time.Millisecond {
		t.Errorf("At(1000) = %v; want 15s (start of the ramp down)", at)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"30s:10,3m:100,30s:0", "1s:1", "1h:1e6", "5s:0", ",", "1ms:0.5,1ms:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStages(s)
		if err != nil {
			return
		}
		sch := NewSchedule(0, st, 0)
		prev := time.Duration(-1)
		n := min(sch.Total(), 1000)
		for k := int64(0); k < n; k++ {
			at, ok := sch.At(float64(k))
			if !ok || at < prev || at > sch.Duration() {
				t.Fatalf("%q: At(%d) = %v, %v (prev %v, end %v)", s, k, at, ok, prev, sch.Duration())
			}
			prev = at
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"500", "30000/1m", "2/100ms", "1/s", "0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err == nil && !(r > 0 && r <= maxRate) {
			t.Fatalf("ParseRate(%q) = %v: out of range without error", s, r)
		}
	})
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", "4/4", "0/4", "5/4", "a/b", "1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err == nil && !(n >= 1 && i >= 0 && i < n) {
			t.Fatalf("ParseShard(%q) = %d, %d", s, i, n)
		}
	})
}

// An open-model schedule that sends no request is refused, naming the flag
// that made it so; one request is enough.
func TestCheckScheduleRefusesAnEmptySchedule(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string // "" when accepted
	}{
		{Config{Rate: 1e-300}, "--rate 1e-300 sends 1e-299 requests in 10s: give at least 0.1 per second"},
		{Config{Rate: 0.5, Duration: time.Second}, "--rate 0.5 sends 0.5 requests in 1s: give at least 1 per second"},
		{Config{Stages: []Stage{{time.Second, 0}}}, "--stages: the schedule sends 0 requests in its 1s"},
		{Config{Stages: []Stage{{time.Second, 1}}}, "--stages: the schedule sends 0.5 requests"},
		{Config{Rate: 0.1}, ""},
		{Config{Rate: 10, Stages: []Stage{{time.Second, 0}}}, ""},
		{Config{Requests: 1}, ""},
	} {
		err := tc.c.CheckSchedule()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("rate %g, stages %v, -d %s: %v; want %q", tc.c.Rate, tc.c.Stages, tc.c.Duration, err, tc.want)
		}
	}
}
