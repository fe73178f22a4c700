package service

import (
	"os"
	"testing"
)

// TestPeakRSS reads this process's peak RSS, at least what it holds now.
func TestPeakRSS(t *testing.T) {
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	peak := PeakRSS([]int{os.Getpid()})
	if peak < int64(len(buf)) {
		t.Errorf("peak RSS %d B after touching %d B", peak, len(buf))
	}
	if PeakRSS([]int{1 << 30}) != 0 {
		t.Error("a process that does not exist has a peak RSS")
	}
	_ = buf[len(buf)-1]
}

func TestParseVmHWM(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"Name:\tx\nVmPeak:\t  1 kB\nVmHWM:\t    2048 kB\nVmRSS:\t 1 kB\n", 2 << 20, true},
		{"Name:\tx\nVmHWM:\t    2048 MB\n", 0, false},
		{"Name:\tkthreadd\nState:\tS\n", 0, false},
		{"Name:\tx\nVmHWM:\t-5 kB\n", 0, false},
	} {
		got, ok := parseVmHWM([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseVmHWM(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseVmHWM(f *testing.F) {
	f.Add("Name:\tx\nVmHWM:\t    2048 kB\n")
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := parseVmHWM([]byte(s)); ok && (v < 0 || v > 1<<50) {
			t.Fatalf("parseVmHWM(%q) = %d", s, v)
		}
	})
}
