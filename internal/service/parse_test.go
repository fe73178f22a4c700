package service

import (
	"strings"
	"testing"
)

func TestParseCPUStat(t *testing.T) {
	v2 := "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\nnr_periods 40\nnr_throttled 30\nthrottled_usec 250000\nnr_bursts 0\nburst_usec 0\n"
	got, err := parseCPUStat([]byte(v2))
	want := cpuStat{UsageUsec: 1500000, Periods: 40, Throttled: 30, ThrottledUsec: 250000}
	if err != nil || got != want {
		t.Errorf("v2: parseCPUStat = %+v, %v; want %+v", got, err, want)
	}
	v1 := "nr_periods 12\nnr_throttled 3\nthrottled_time 4000000\nnr_bursts 0\nburst_time 0\n"
	got, err = parseCPUStat([]byte(v1))
	want = cpuStat{Periods: 12, Throttled: 3, ThrottledUsec: 4000}
	if err != nil || got != want {
		t.Errorf("v1: parseCPUStat = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"nr_periods x\n", "nr_periods -1\n", "garbage\n"} {
		if _, err := parseCPUStat([]byte(bad)); err == nil {
			t.Errorf("parseCPUStat(%q): want an error", bad)
		}
	}
}

func TestParseCPUMax(t *testing.T) {
	for in, want := range map[string]float64{"max 100000\n": 0, "50000 100000\n": 0.5, "200000 100000": 2} {
		if got, err := parseCPUMax([]byte(in)); err != nil || got != want {
			t.Errorf("parseCPUMax(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "max", "50000 0", "-5 100000", "a b"} {
		if _, err := parseCPUMax([]byte(bad)); err == nil {
			t.Errorf("parseCPUMax(%q): want an error", bad)
		}
	}
	if quotaCores(-1, 100000) != 0 || quotaCores(50000, 100000) != 0.5 {
		t.Error("quotaCores: -1 must mean no limit and 50000/100000 half a core")
	}
}

func TestParseIntOrMax(t *testing.T) {
	for in, want := range map[string]int64{"max\n": -1, "123\n": 123, "9223372036854771712\n": 9223372036854771712} {
		if got, err := parseIntOrMax([]byte(in)); err != nil || got != want {
			t.Errorf("parseIntOrMax(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseIntOrMax([]byte("12k")); err == nil {
		t.Error(`parseIntOrMax("12k"): want an error`)
	}
}

func TestParseProcStat(t *testing.T) {
	line := "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 9 0 123456 1000000 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	got, err := parseProcStat([]byte(line))
	want := procStat{State: 'S', PPID: 17, UTime: 250, STime: 50, CUTime: 7, CSTime: 3, Threads: 9, StartTime: 123456, RSSPages: 2560}
	if err != nil || got != want {
		t.Errorf("parseProcStat = %+v, %v; want %+v", got, err, want)
	}
	if got.total() != 310 {
		t.Errorf("total = %d; want 310", got.total())
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2 3", "1 (x) S a 1 1 0 -1 0 0 0 0 0 1 1 1 1 20 0 1 0 1 1 1"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q): want an error", bad)
		}
	}
}

func TestParsePIDs(t *testing.T) {
	got, err := parsePIDs(nil, []byte("12\n345\n\n"))
	if err != nil || len(got) != 2 || got[0] != 12 || got[1] != 345 {
		t.Errorf("parsePIDs = %v, %v; want [12 345]", got, err)
	}
	if _, err := parsePIDs(nil, []byte("12\nx\n")); err == nil || !strings.Contains(err.Error(), "cgroup.procs") {
		t.Errorf("parsePIDs(bad) = %v; want an error naming cgroup.procs", err)
	}
}

// TestSelfStat parses this process's real /proc stat.
func TestSelfStat(t *testing.T) {
	var r fileReader
	b, err := r.read("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseProcStat(b)
	if err != nil || s.Threads < 1 || s.RSSPages < 1 || s.StartTime == 0 {
		t.Fatalf("parseProcStat(/proc/self/stat) = %+v, %v", s, err)
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("4242 (a b) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 9 0 123456 1000000 2560 1 1\n")
	f.Add("1 ()) R 0")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseProcStat([]byte(s))
		if err == nil && (st.UTime < 0 || st.Threads < 0) {
			t.Fatalf("parseProcStat(%q) = %+v", s, st)
		}
	})
}

func FuzzParseCPUStat(f *testing.F) {
	f.Add("usage_usec 1500000\nnr_periods 40\nnr_throttled 30\nthrottled_usec 250000\n")
	f.Add("nr_periods 12\nnr_throttled 3\nthrottled_time 4000000\n")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseCPUStat([]byte(s))
		if err == nil && (st.Periods < 0 || st.Throttled < 0 || st.ThrottledUsec < 0 || st.UsageUsec < 0) {
			t.Fatalf("parseCPUStat(%q) = %+v", s, st)
		}
		_, _ = parseCPUMax([]byte(s))
		_, _ = parsePIDs(nil, []byte(s))
	})
}
