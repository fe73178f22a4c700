package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseBenchFailOn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []BenchRule
	}{
		{"", nil},
		{"ns/op>5%", []BenchRule{{"ns/op", Threshold{Op: '>', Pct: 5}, false}}},
		{"ns/op>+5%, allocs/op>0", []BenchRule{{"ns/op", Threshold{Op: '>', Pct: 5}, false}, {"allocs/op", Threshold{Op: '>', Pct: 0}, true}}},
		{"B/op>+64,MB/s<-10%", []BenchRule{{"B/op", Threshold{Op: '>', Pct: 64}, true}, {"MB/s", Threshold{Op: '<', Pct: -10}, false}}},
		{"items/op < -0.5", []BenchRule{{"items/op", Threshold{Op: '<', Pct: -0.5}, true}}},
	} {
		got, err := ParseBenchFailOn(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseBenchFailOn(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseBenchFailOnErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ns/op=5%", "has no '>' or '<'"},
		{">5%", "the unit must be one word"},
		{"ns per op>5%", "the unit must be one word"},
		{"ns/op>fast", `limit "fast" is not a number`},
		{"ns/op>inf", "is not a number"},
		{"ns/op>inf%", "is not a number"},
		{"ns/op>0x10", "is not a number"},
		{"ns/op>5%,", "empty item"},
	} {
		if _, err := ParseBenchFailOn(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseBenchFailOn(%q) error = %v; want one containing %q", tc.in, err, tc.want)
		}
	}
}

// A change from 0 is caught by an absolute rule, and by a relative one:
// a rise from nothing is beyond any percentage.
func TestAbsoluteThresholdFromZero(t *testing.T) {
	c := Compare([]float64{0, 0, 0, 0, 0, 0}, []float64{2, 2, 2, 2, 2, 2})
	abs, _ := ParseBenchFailOn("allocs/op>0")
	rel, _ := ParseBenchFailOn("allocs/op>+50%")
	if !abs[0].Violated(c) {
		t.Errorf("%v not violated by 0 -> 2 allocs/op (p=%v)", abs[0], c.P)
	}
	if !rel[0].Violated(c) {
		t.Errorf("%v not violated by 0 -> 2 allocs/op: a rise from nothing is beyond any percentage", rel[0])
	}
	if abs[0].Violated(Compare([]float64{2, 2, 2, 2, 2, 2}, []float64{0, 0, 0, 0, 0, 0})) {
		t.Errorf("%v violated by an improvement", abs[0])
	}
}

func FuzzParseBenchFailOn(f *testing.F) {
	for _, s := range []string{"ns/op>5%", "allocs/op>0", "B/op<-1.5,MB/s<-10%", "", ",", "x>", "a>1e3", "é/op>+0%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ths, err := ParseBenchFailOn(s)
		if err != nil {
			return
		}
		var parts []string
		for _, th := range ths {
			if th.Unit == "" || (th.Op != '>' && th.Op != '<') || math.IsNaN(th.Pct) || math.IsInf(th.Pct, 0) {
				t.Fatalf("ParseBenchFailOn(%q) gave invalid %#v", s, th)
			}
			parts = append(parts, th.String())
		}
		again, err := ParseBenchFailOn(strings.Join(parts, ","))
		if err != nil || !slices.Equal(again, ths) {
			t.Fatalf("round trip of %q via %q = %v, %v; want %v", s, parts, again, err, ths)
		}
	})
}
