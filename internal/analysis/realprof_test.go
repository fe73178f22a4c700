package analysis

import (
	"testing"
)

func TestTopRealProfile(t *testing.T) {
	p := realCPUProfile(t)
	tb, err := Top(p, TopOptions{User: true, Requests: 100})
	if err != nil {
		t.Fatal(err)
	}
	rows := rowsByName(tb)
	for _, fn := range []string{"plantedFormat", "plantedLower", "plantedPNG"} {
		r, ok := rows[pkgPath+fn]
		if !ok {
			t.Errorf("Top(User) lacks %s; rows %v", fn, tb.Rows)
			continue
		}
		if !r.User || r.FlatPct < 10 || r.Attributed < r.Flat/2 {
			t.Errorf("Top(User) %s = %+v; want user code with >10%% of CPU, mostly attributed", fn, r)
		}
	}
}

func TestHotRealProfile(t *testing.T) {
	hot := Hot(realCPUProfile(t), 100, 5)
	from := map[string]string{}
	for _, h := range hot {
		if h.UserCode {
			from[h.Function] = h.AttributedSample
		}
	}
	for fn, want := range map[string]string{"plantedFormat": "fmt.Sprintf", "plantedLower": "strings.ToLower", "plantedPNG": "image/png.Encode"} {
		if got, ok := from[pkgPath+fn]; !ok || got != want {
			t.Errorf("Hot: %s attributed_from = %q (listed %v), want %q; hot = %+v", fn, got, ok, want, hot)
		}
	}
	if hot[0].CPUUsPerRequest < 0 || hot[0].AttributedUsReq <= 0 {
		t.Errorf("Hot[0] per-request values = %+v", hot[0])
	}
	var std bool
	for _, h := range hot {
		std = std || !h.UserCode
	}
	if !std {
		t.Error("Hot lists no std/runtime rows")
	}
}

func TestAllocTopRealProfile(t *testing.T) {
	allocs := AllocTop(realAllocProfile(t), 50, 5)
	if len(allocs) == 0 || allocs[0].Function != pkgPath+"plantedParse" || !allocs[0].UserCode {
		t.Fatalf("AllocTop first row = %+v, want plantedParse", allocs)
	}
	// 50 parses of 200 lines: each line splits into 5 strings, upper-cases
	// the key twice and grows slices; at least ~4 objects a line.
	if a := allocs[0]; a.BytesPerRequest < 10000 || a.ObjectsPerRequest < 800 {
		t.Errorf("plantedParse allocations per request = %.0f B, %.0f objects; want >= 10000 B, 800 objects", a.BytesPerRequest, a.ObjectsPerRequest)
	}
}
