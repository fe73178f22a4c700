package analysis

import (
	"math"
	"testing"

	"perflab/internal/runfmt"
)

// TestEndpointMarginFromSampleCount: each handler carries its count of
// samples and the 95% margin of its CPU per request from that count, and
// a target its handlers' margins combined. A handler of 40 of 400 samples
// is read to within 1.96·sqrt(0.9/40), about 29%; one of 300, to within
// 11%.
func TestEndpointMarginFromSampleCount(t *testing.T) {
	const period = 10_000_000 // ns: 100 Hz
	p := build(t, []string{"samples/count", "cpu/nanoseconds"},
		smp{dispatch + "demo.(*app).handleReport;demo.renderReport", []int64{40, 40 * period}},
		smp{dispatch + "demo.(*app).handleExport;demo.exportOrders", []int64{300, 300 * period}},
		smp{"runtime.goexit;runtime.gcBgMarkWorker", []int64{60, 60 * period}},
	)
	load := &runfmt.LoadResult{Requests: 200, Targets: []runfmt.TargetStats{
		{Target: "GET http://127.0.0.1:8080/report", Requests: 100},
		{Target: "GET http://127.0.0.1:8080/export", Requests: 100},
	}}
	e := Endpoints(EndpointInput{CPU: p, Requests: 200, Load: load, Target: &runfmt.TargetSummary{CPUMsPerRequest: 20}})
	if e == nil || len(e.Handlers) != 2 || len(e.Targets) != 2 {
		t.Fatalf("endpoints %+v; want two handlers, two targets", e)
	}
	want := map[string]struct {
		samples int64
		margin  float64 // relative
	}{
		"demo.(*app).handleReport": {40, 1.96 * math.Sqrt(0.9/40)},
		"demo.(*app).handleExport": {300, 1.96 * math.Sqrt(0.25/300)},
	}
	for _, h := range e.Handlers {
		w := want[h.Handler]
		if h.Samples != w.samples || !near(h.MarginUsPerRequest, w.margin*h.CPUUsPerRequest) {
			t.Errorf("%s: %d samples, margin %.1f µs of %.1f; want %d, %.1f", h.Handler, h.Samples, h.MarginUsPerRequest, h.CPUUsPerRequest, w.samples, w.margin*h.CPUUsPerRequest)
		}
	}
	for _, tc := range e.Targets {
		if tc.MarginUsPerRequest <= 0 || tc.MarginUsPerRequest >= tc.HandlerUsPerRequest {
			t.Errorf("%s: margin %.1f µs of its handlers' %.1f; want a part of it", tc.Target, tc.MarginUsPerRequest, tc.HandlerUsPerRequest)
		}
	}
}

// TestEndpointMarginCountsTheWaits: from a profiler that counts a thread
// waiting for a CPU as working, a profile standing for 1.2× the CPU
// measured widens every handler's margin by the fifth that may be waits,
// combined with its count's; one standing for less widens none.
func TestEndpointMarginCountsTheWaits(t *testing.T) {
	const period = 10_000_000 // ns: 100 Hz
	p := build(t, []string{"samples/count", "cpu/nanoseconds"},
		smp{dispatch + "demo.(*app).handleReport;demo.renderReport", []int64{40, 40 * period}},
		smp{dispatch + "demo.(*app).handleExport;demo.exportOrders", []int64{300, 300 * period}},
	)
	load := &runfmt.LoadResult{Requests: 200, Targets: []runfmt.TargetStats{
		{Target: "GET http://127.0.0.1:8080/report", Requests: 100},
		{Target: "GET http://127.0.0.1:8080/export", Requests: 100},
	}}
	for _, c := range []struct {
		coverage, wait float64
	}{{1.2, 0.2}, {0.9, 0}, {0, 0}} {
		e := Endpoints(EndpointInput{CPU: p, Requests: 200, Load: load, Target: &runfmt.TargetSummary{CPUMsPerRequest: 20}, RunnableCoverage: c.coverage})
		if e == nil || len(e.Handlers) != 2 {
			t.Fatalf("coverage %.1f: endpoints %+v; want two handlers", c.coverage, e)
		}
		if !near(e.WaitMarginPct, 100*c.wait) {
			t.Errorf("coverage %.1f: wait margin %.1f%%; want %.1f%%", c.coverage, e.WaitMarginPct, 100*c.wait)
		}
		for _, h := range e.Handlers {
			want := math.Hypot(samplingMargin(h.Samples, 340), c.wait) * h.CPUUsPerRequest
			if !near(h.MarginUsPerRequest, want) {
				t.Errorf("coverage %.1f, %s: margin %.1f µs; want %.1f", c.coverage, h.Handler, h.MarginUsPerRequest, want)
			}
		}
	}
}

// TestEndpointMarginUncounted: a profile that does not count its samples
// gives no margin, rather than one of 0.
func TestEndpointMarginUncounted(t *testing.T) {
	e := Endpoints(endpointsProfile(t))
	for _, h := range e.Handlers {
		if h.Samples != 0 || h.MarginUsPerRequest != 0 {
			t.Errorf("%s: %d samples, margin %.1f µs from a profile without a count of samples", h.Handler, h.Samples, h.MarginUsPerRequest)
		}
	}
}

func TestSamplingMargin(t *testing.T) {
	for _, c := range []struct {
		k, n int64
		want float64
	}{
		{40, 400, 1.96 * math.Sqrt(0.9/40)},
		{400, 400, 0}, // the whole profile: its share is certain
		{0, 400, 0},
		{5, 0, 0},
		{5, 4, 0}, // not a share
	} {
		if got := samplingMargin(c.k, c.n); !near(got, c.want) {
			t.Errorf("samplingMargin(%d, %d) = %.4f; want %.4f", c.k, c.n, got, c.want)
		}
	}
}
