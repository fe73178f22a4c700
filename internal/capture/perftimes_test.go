package capture

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParsePerfScriptTimes: each sample's time is kept with the profile's
// sample it was added to, two samples of one stack being one sample of two
// times; a sample without a time has none.
func TestParsePerfScriptTimes(t *testing.T) {
	script := "prog 10/10   412.985493:   10101010 cpu-clock: \n\t  4a1 main.hash+0x1 (/bin/prog)\n\n" +
		"prog 10/11   413.000001:   10101010 cpu-clock: \n\t  4b2 main.work+0x2 (/bin/prog)\n\n" +
		"prog 10/10   413.5:   10101010 cpu-clock: \n\t  4a1 main.hash+0x1 (/bin/prog)\n\n" +
		"prog 10/10 10101010 cpu-clock: \n\t  4a1 main.hash+0x1 (/bin/prog)\n\n"
	var times []SampleTime
	p, err := parsePerfScript(strings.NewReader(script), nil, &times)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{412985493 * time.Microsecond, 413000001 * time.Microsecond, 413500 * time.Millisecond}
	if len(times) != len(want) || len(p.Sample) != 2 {
		t.Fatalf("%d times of %d samples; want %d of 2", len(times), len(p.Sample), len(want))
	}
	for i, w := range want {
		if times[i].Mono != w {
			t.Errorf("time %d: %v; want %v", i, times[i].Mono, w)
		}
	}
	if times[0].Sample != times[2].Sample || times[0].Sample == times[1].Sample || times[0].Sample.Value[0] != 3 {
		t.Errorf("samples %p %p %p (value %v); want the first and third the same, of 3 samples", times[0].Sample, times[1].Sample, times[2].Sample, times[0].Sample.Value)
	}
}

func TestParsePerfTime(t *testing.T) {
	for _, c := range []struct {
		tok  string
		want time.Duration
		ok   bool
	}{
		{"412.985493:", 412985493 * time.Microsecond, true},
		{"1.000000001:", time.Second + 1, true},
		{"0.5:", 500 * time.Millisecond, true},
		{"412:", 0, false},
		{".5:", 0, false},
		{"1.0000000001:", 0, false},
		{"-1.5:", 0, false},
		{"1.-5:", 0, false},
		{"+1.5:", 0, false},
		{"99999999999999999999.1:", 0, false},
	} {
		if got, ok := parsePerfTime(c.tok); got != c.want || ok != c.ok {
			t.Errorf("parsePerfTime(%q) = %v, %t; want %v, %t", c.tok, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParsePerfTime: a time read is never negative and keeps its whole
// seconds.
func FuzzParsePerfTime(f *testing.F) {
	for _, s := range []string{"412.985493:", "1.000000001:", "0.5:", "9223372035.0:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		d, ok := parsePerfTime(tok)
		if !ok {
			return
		}
		secs, _, _ := strings.Cut(tok, ".")
		if whole, err := strconv.ParseInt(secs, 10, 64); d < 0 || err != nil || int64(d/time.Second) != whole {
			t.Fatalf("parsePerfTime(%q) = %v", tok, d)
		}
	})
}
