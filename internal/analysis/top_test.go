package analysis

import (
	"bytes"
	"flag"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/units"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

func rowsByName(tb *Table) map[string]Row {
	m := map[string]Row{}
	for _, r := range tb.Rows {
		m[r.Function] = r
	}
	return m
}

func TestTopFlatCum(t *testing.T) {
	tb, err := Top(cpuProfile(t), TopOptions{Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Total != 1000 || tb.Unit != "nanoseconds" || tb.SampleType != "cpu" {
		t.Fatalf("table header = %d %s %s, want 1000 nanoseconds cpu", tb.Total, tb.Unit, tb.SampleType)
	}
	want := []struct {
		name       string
		flat, cum  int64
		attributed int64
		user       bool
	}{
		{"fmt.(*pp).doPrintf", 400, 400, 0, false},
		{"runtime.mallocgc", 200, 200, 0, false},
		{"runtime.gcDrain", 150, 150, 0, false},
		{"main.search", 100, 400, 300, true},
		{"strings.ToLower", 100, 300, 0, false},
		{"main.render", 50, 450, 400, true},
		{"main.handler", 0, 850, 0, true},
		{"runtime.goexit", 0, 1000, 0, false},
	}
	rows := rowsByName(tb)
	for _, w := range want {
		r, ok := rows[w.name]
		if !ok {
			t.Errorf("Top: no row for %s", w.name)
			continue
		}
		if r.Flat != w.flat || r.Cum != w.cum || r.Attributed != w.attributed || r.User != w.user {
			t.Errorf("Top row %s = flat %d cum %d attributed %d user %v; want %d %d %d %v", w.name, r.Flat, r.Cum, r.Attributed, r.User, w.flat, w.cum, w.attributed, w.user)
		}
	}
	if r := tb.Rows[0]; r.Function != "fmt.(*pp).doPrintf" || r.FlatPct != 40 || r.FlatPerReq != 40 || r.CumPerReq != 40 {
		t.Errorf("first row = %+v; want doPrintf 40%% 40ns/req", r)
	}
	if r := tb.Rows[1]; r.SumPct != 60 {
		t.Errorf("second row sum%% = %v, want 60", r.SumPct)
	}
}

func TestTopUser(t *testing.T) {
	tb, err := Top(cpuProfile(t), TopOptions{User: true, Requests: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tb.Rows {
		got = append(got, r.Function)
	}
	// main.render: 50 own + 400 fmt; main.search: 100 + 300; GC stacks go to
	// their entry function; main.handler has cum only.
	want := []string{"main.render", "main.search", "runtime.gcBgMarkWorker", "main.handler"}
	if len(got) != len(want) {
		t.Fatalf("Top(User) rows = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Top(User) rows = %v, want %v", got, want)
		}
	}
	r := tb.Rows[0]
	if r.Flat != 450 || r.Attributed != 400 || r.FlatPerReq != 112.5 || r.Cum != 450 {
		t.Errorf("main.render = %+v; want flat 450 attributed 400 flat/req 112.5", r)
	}
	if g := tb.Rows[2]; g.Flat != 150 || g.User {
		t.Errorf("gc entry row = %+v; want flat 150, not user", g)
	}
	if tb.Shown != 1000 {
		t.Errorf("user rows account for %d, want all 1000", tb.Shown)
	}
}

func TestTopFocusAndN(t *testing.T) {
	tb, err := Top(cpuProfile(t), TopOptions{Focus: `^main\.search$`, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 2 || tb.Funcs != 6 {
		t.Fatalf("focus rows = %d of %d, want 2 of 6: %+v", len(tb.Rows), tb.Funcs, tb.Rows)
	}
	if tb.Rows[0].Function != "runtime.mallocgc" || tb.Rows[0].FlatPct != 20 {
		t.Errorf("focus first row = %+v; want runtime.mallocgc at 20%% of the whole profile", tb.Rows[0])
	}
	if _, err := Top(cpuProfile(t), TopOptions{Focus: "("}); err == nil {
		t.Error("Top with a bad focus regexp: no error")
	}
}

func TestTopSampleIndex(t *testing.T) {
	p := cpuProfile(t)
	for _, tc := range []struct {
		idx, want string
		total     int64
	}{{"", "cpu", 1000}, {"samples", "samples", 10}, {"0", "samples", 10}, {"1", "cpu", 1000}} {
		tb, err := Top(p, TopOptions{SampleIndex: tc.idx})
		if err != nil {
			t.Fatalf("Top(SampleIndex %q): %v", tc.idx, err)
		}
		if tb.SampleType != tc.want || tb.Total != tc.total {
			t.Errorf("Top(SampleIndex %q) = %s total %d, want %s %d", tc.idx, tb.SampleType, tb.Total, tc.want, tc.total)
		}
	}
	for _, bad := range []string{"alloc_space", "2", "-1"} {
		if _, err := Top(p, TopOptions{SampleIndex: bad}); err == nil {
			t.Errorf("Top(SampleIndex %q): no error", bad)
		}
	}
}

func TestWriteTextGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  TopOptions
	}{
		{"top", TopOptions{}},
		{"top_user_perreq", TopOptions{User: true, Requests: 4}},
		{"top_cum_n3", TopOptions{Cum: true, N: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Top(cpuProfile(t), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := tb.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			labtest.Golden(t, ".txt", buf.Bytes(), *update)
		})
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{0, "nanoseconds", "0"}, {1500, "nanoseconds", "1.5µs"}, {2.5e6, "nanoseconds", "2.5ms"},
		{1.2e9, "nanoseconds", "1.2s"}, {123.456e9, "nanoseconds", "123.5s"}, {512, "bytes", "512 B"},
		{1536, "bytes", "1.5 KiB"}, {3 << 20, "bytes", "3.0 MiB"}, {1500, "count", "1.5k"}, {7, "count", "7"},
	} {
		if got := units.FormatValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("units.FormatValue(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
