package analysis

import (
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

func TestHotExact(t *testing.T) {
	hot := Hot(cpuProfile(t), 10, 2)
	// Two user functions by attributed cost, then two std/runtime by flat.
	want := []struct {
		fn           string
		user         bool
		flatUs, attr float64
		from         string
	}{
		{"main.render", true, 0.005, 0.040, "fmt.Sprintf"},
		{"main.search", true, 0.010, 0.030, "strings.ToLower"},
		{"fmt.(*pp).doPrintf", false, 0.040, 0, ""},
		{"runtime.mallocgc", false, 0.020, 0, ""},
	}
	if len(hot) != len(want) {
		t.Fatalf("Hot = %+v, want %d rows", hot, len(want))
	}
	for i, w := range want {
		h := hot[i]
		if h.Function != w.fn || h.UserCode != w.user || !near(h.CPUUsPerRequest, w.flatUs) || !near(h.AttributedUsReq, w.attr) || h.AttributedSample != w.from {
			t.Errorf("Hot[%d] = %+v; want %s user=%v flat %.3fµs attributed %.3fµs from %q", i, h, w.fn, w.user, w.flatUs, w.attr, w.from)
		}
	}
	if hot[0].FlatPct != 5 || hot[0].CumPct != 45 || !near(hot[0].CumUsPerRequest, 0.045) {
		t.Errorf("Hot[0] pcts = %+v", hot[0])
	}
}

func TestHotSamplesCountProfile(t *testing.T) {
	// A perf-style profile counting samples every 10ms: per-request CPU
	// comes from the period.
	p := build(t, []string{"samples/count"}, smp{"main.a", []int64{5}}, smp{"main.a;runtime.memmove", []int64{5}})
	p.PeriodType.Type, p.PeriodType.Unit, p.Period = "cpu", "nanoseconds", 10000000
	hot := Hot(p, 10, 3)
	if len(hot) == 0 || hot[0].Function != "main.a" || !near(hot[0].CPUUsPerRequest, 5000) || !near(hot[0].AttributedUsReq, 5000) {
		t.Errorf("Hot(samples/count) = %+v; want main.a with 5000µs flat and attributed per request", hot)
	}
}

func TestAllocTopExact(t *testing.T) {
	p := build(t, []string{"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"},
		smp{"main.handler;main.parse;strings.Split;runtime.makeslice", []int64{10, 4000, 0, 0}},
		smp{"main.handler;main.parse", []int64{2, 1000, 1, 500}},
		smp{"main.handler;bufio.NewReader", []int64{1, 4096, 0, 0}},
		smp{"runtime.malg", []int64{1, 8192, 1, 8192}},
	)
	got := AllocTop(p, 2, 10)
	want := []struct {
		fn         string
		user       bool
		bytes, obj float64
	}{
		{"main.parse", true, 2500, 6},
		{"main.handler", true, 2048, 0.5},
		{"runtime.malg", false, 4096, 0.5},
		{"bufio.NewReader", false, 2048, 0.5},
		{"runtime.makeslice", false, 2000, 5},
	}
	if len(got) != len(want) {
		t.Fatalf("AllocTop = %+v, want %d rows", got, len(want))
	}
	for i, w := range want {
		a := got[i]
		if a.Function != w.fn || a.UserCode != w.user || a.BytesPerRequest != w.bytes || a.ObjectsPerRequest != w.obj {
			t.Errorf("AllocTop[%d] = %+v; want %s user=%v %.1f B %.1f objects", i, a, w.fn, w.user, w.bytes, w.obj)
		}
	}
	if got[1].CumBytesPerReq != 4548 {
		t.Errorf("main.handler cum bytes/request = %v, want 4548", got[1].CumBytesPerReq)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestAsyncPreemptIsChargedToTheInterruptedFunction(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	pre, work, main := fn(1, "runtime.asyncPreempt"), fn(2, "main.work"), fn(3, "main.main")
	lPre, lWork, lMain := loc(1, pre), loc(2, work), loc(3, main)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lPre, lWork, lMain}, Value: []int64{30}},
			{Location: []*profile.Location{lWork, lMain}, Value: []int64{70}},
		},
		Location: []*profile.Location{lPre, lWork, lMain}, Function: []*profile.Function{pre, work, main},
	}
	tab, err := Top(p, TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows[0].Function != "main.work" || tab.Rows[0].Flat != 100 {
		t.Errorf("top row %+v; want main.work with all 100", tab.Rows[0])
	}
	for _, r := range tab.Rows {
		if r.Function == "runtime.asyncPreempt" {
			t.Errorf("asyncPreempt still has a row: %+v", r)
		}
	}
}
