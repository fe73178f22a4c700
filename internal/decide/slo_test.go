package decide

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestParseSLO(t *testing.T) {
	slo, err := ParseSLO("p99<100ms, errors<1%,P50<2.5ms")
	if err != nil {
		t.Fatal(err)
	}
	if slo.String() != "p99<100ms,errors<1%,p50<2.5ms" {
		t.Errorf("ParseSLO round trip = %q", slo.String())
	}
	ok := &runfmt.LoadResult{Requests: 1000, Errors: 5, Latency: runfmt.Latency{P50: 1, P99: 80}}
	if pass, why := slo.Check(ok); !pass {
		t.Errorf("Check(ok) failed: %s", why)
	}
	slow := &runfmt.LoadResult{Requests: 1000, Errors: 5, Latency: runfmt.Latency{P50: 1, P99: 120}}
	if pass, why := slo.Check(slow); pass || why != "p99 120.00 ms >= 100.00 ms" {
		t.Errorf("Check(slow) = %v, %q", pass, why)
	}
	failing := &runfmt.LoadResult{Requests: 1000, Errors: 20, Latency: runfmt.Latency{P50: 1, P99: 50}}
	if pass, why := slo.Check(failing); pass || !strings.Contains(why, "errors 2%") {
		t.Errorf("Check(errors) = %v, %q", pass, why)
	}
	for _, bad := range []string{"", "p99", "p99<", "p99<fast", "p98<10ms", "errors<1", "errors<0%", "errors<101%", "p99>10ms", "p99<-5ms"} {
		if _, err := ParseSLO(bad); err == nil || !strings.Contains(err.Error(), "--slo") {
			t.Errorf("ParseSLO(%q) = %v; want an error naming --slo", bad, err)
		}
	}
}

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<100ms,errors<1%", "mean<1s", "p999<2.5ms,max<1m", "errors<0.5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			return
		}
		again, err := ParseSLO(slo.String())
		if err != nil || len(again) != len(slo) {
			t.Fatalf("%q parsed to %q, which does not parse back: %v", s, slo.String(), err)
		}
		for _, o := range slo {
			if !(o.Limit > 0) {
				t.Fatalf("%q: limit %v", s, o.Limit)
			}
		}
	})
}
