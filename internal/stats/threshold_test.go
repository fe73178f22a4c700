package stats

import (
	"math"
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestParseFailOn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Threshold
	}{
		{"", nil},
		{"  ", nil},
		{"cpu_per_request>+5%,p99>+10%,rps<-5%", []Threshold{
			{"cpu_per_request", '>', 5}, {"p99", '>', 10}, {"rps", '<', -5}}},
		{" gc_pct > 2.5% , rss_max>+20% ", []Threshold{{"gc_pct", '>', 2.5}, {"rss_max", '>', 20}}},
		{"allocs_per_request>0%", []Threshold{{"allocs_per_request", '>', 0}}},
		{"p50<-.5%", []Threshold{{"p50", '<', -0.5}}},
	} {
		got, err := ParseFailOn(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseFailOn(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
		}
	}
}

func TestParseFailOnErrors(t *testing.T) {
	for _, tc := range []struct{ in, wantErr string }{
		{"cpu>+5%", `unknown metric "cpu" (valid: rps, p50, p90, p99, cpu_per_request`},
		{"p99=+5%", `item "p99=+5%" has no '>' or '<'`},
		{"p99>+5", `percentage "+5" must end in '%'`},
		{"p99>abc%", `percentage "abc%" is not a number`},
		{"p99>inf%", `is not a number`},
		{"p99>0x10%", `is not a number`},
		{"p99>1-2%", `is not a number`},
		{"p99>+5%,", `empty item (stray comma?)`},
		{"rps<-5%,,p99>1%", `empty item`},
		{">5%", `unknown metric ""`},
		{"p99>-10%", `p99 gets worse as it rises, so the rule that fires on a regression is p99>+10%: p99>-10% fires on any change above -10%, improvements included`},
		{"rps<+5%", `rps gets worse as it falls, so the rule that fires on a regression is rps<-5%: rps<+5% fires on any change below +5%, improvements included`},
		{"p99<+2.5%", `the rule that fires on a regression is p99>+2.5%: p99<+2.5% fires on any change below +2.5%`},
		{"rps>-10%", `rps gets worse as it falls, so the rule that fires on a regression is rps<-10%: rps>-10% fires on any change above -10%`},
	} {
		_, err := ParseFailOn(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseFailOn(%q) error = %v; want it to contain %q", tc.in, err, tc.wantErr)
		}
	}
}

func TestThresholdViolated(t *testing.T) {
	sig := func(d float64) Comparison { return Comparison{DeltaPct: d, Significant: true, P: 0.008} }
	for _, tc := range []struct {
		t    Threshold
		c    Comparison
		want bool
	}{
		{Threshold{"cpu_per_request", '>', 5}, sig(12), true},
		{Threshold{"cpu_per_request", '>', 5}, sig(4), false},
		{Threshold{"cpu_per_request", '>', 5}, sig(-20), false},
		{Threshold{"cpu_per_request", '>', 5}, Comparison{DeltaPct: 40, P: 0.3}, false},
		{Threshold{"cpu_per_request", '>', 5}, Comparison{DeltaPct: 40, Significant: true, TooFew: true}, false},
		{Threshold{"rps", '<', -5}, sig(-8), true},
		{Threshold{"rps", '<', -5}, sig(-3), false},
		{Threshold{"rps", '<', -5}, sig(10), false},
	} {
		if got := tc.t.Violated(tc.c); got != tc.want {
			t.Errorf("%v.Violated(delta %v significant %v) = %v; want %v",
				tc.t, tc.c.DeltaPct, tc.c.Significant, got, tc.want)
		}
	}
}

func TestThresholdViolatedOnRealComparison(t *testing.T) {
	th, err := ParseFailOn("cpu_per_request>+5%")
	if err != nil {
		t.Fatal(err)
	}
	c := Compare([]float64{1.0, 1.01, 0.99, 1.02, 1.0}, []float64{1.2, 1.21, 1.19, 1.22, 1.2})
	if !th[0].Violated(c) {
		t.Errorf("%v not violated by %+v", th[0], c)
	}
}

func FuzzParseFailOn(f *testing.F) {
	for _, s := range []string{
		"cpu_per_request>+5%,p99>+10%,rps<-5%", "", "p99>", "gc_pct<-0.5%", ",", "rss_max>1e3%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ths, err := ParseFailOn(s)
		if err != nil {
			return
		}
		var parts []string
		for _, th := range ths {
			if !runfmt.MetricNames.Contains(th.Metric) || (th.Op != '>' && th.Op != '<') ||
				math.IsNaN(th.Pct) || math.IsInf(th.Pct, 0) {
				t.Fatalf("ParseFailOn(%q) gave invalid %#v", s, th)
			}
			parts = append(parts, th.String())
		}
		again, err := ParseFailOn(strings.Join(parts, ","))
		if err != nil || !slices.Equal(again, ths) {
			t.Fatalf("round trip of %q via %q = %v, %v; want %v", s, parts, again, err, ths)
		}
	})
}

// TestViolatedFromZero: a significant rise from a median of 0 (GC share
// from 0% to 9.4%) crosses any rise rule; its percent change is not
// defined, and reading it as 0 let it pass.
func TestViolatedFromZero(t *testing.T) {
	c := Compare([]float64{0, 0, 0, 0, 0}, []float64{9.1, 9.4, 9.6, 9.2, 9.5})
	if !c.Significant {
		t.Fatalf("comparison %+v; want significant", c)
	}
	for _, tc := range []struct {
		rule string
		want bool
	}{{"gc_pct>+50%", true}, {"gc_pct<-5%", false}} {
		th, err := ParseFailOn(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := th[0].Violated(c); got != tc.want {
			t.Errorf("%s violated = %v; want %v", tc.rule, got, tc.want)
		}
	}
}
