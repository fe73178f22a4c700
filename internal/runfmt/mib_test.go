package runfmt

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMiBFieldsReadTheirOldKeys: a run.json of an earlier perflab, whose
// heap sizes in MiB were keyed *_mb, reads into the *MiB fields; a run is
// written with the *_mib keys alone, and a file holding both keys keeps
// the new one.
func TestMiBFieldsReadTheirOldKeys(t *testing.T) {
	old := `{"schema_version": 3, "name": "x", "id": "20260101-000000-x", "status": "complete",
		"gc": {"count": 4, "heap_max_mb": 48.5, "alloc_mb_per_s": 120.25, "pause_p99_ms": 0.3,
			"events": [{"t": 1.5, "heap_start_mb": 40, "heap_end_mb": 41, "heap_live_mb": 20, "pause_ms": 0.1}]},
		"heap_growth": {"live_start_mb": 20, "live_end_mb": 30, "slope_mb_per_s": 0.5, "collections": 9,
			"inuse_start_mb": 18, "inuse_end_mb": 27, "bytes_per_request": 64,
			"sites": [{"function": "main.cache", "bytes_per_request": 64, "mb_per_s": 0.4}]}}`
	r, err := Read(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	g, h := r.GC, r.Heap
	if g == nil || h == nil || len(g.Events) != 1 || len(h.Sites) != 1 {
		t.Fatalf("gc %+v, heap_growth %+v: not read", g, h)
	}
	e, s := g.Events[0], h.Sites[0]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"heap_max", g.HeapMaxMiB, 48.5}, {"alloc_per_s", g.AllocMiBPerS, 120.25}, {"pause_p99_ms", g.PauseP99Ms, 0.3},
		{"events[0].heap_start", e.HeapStartMiB, 40}, {"events[0].heap_end", e.HeapEndMiB, 41}, {"events[0].heap_live", e.HeapLiveMiB, 20},
		{"events[0].t", e.T, 1.5}, {"live_start", h.LiveStartMiB, 20}, {"live_end", h.LiveEndMiB, 30},
		{"slope_per_s", h.SlopeMiBPerS, 0.5}, {"inuse_start", h.InuseStartMiB, 18}, {"inuse_end", h.InuseEndMiB, 27},
		{"bytes_per_request", h.BytesPerRequest, 64}, {"sites[0].per_s", s.MiBPerS, 0.4},
	} {
		if c.got != c.want {
			t.Errorf("%s = %g; want %g", c.name, c.got, c.want)
		}
	}
	if g.Count != 4 || h.Collections != 9 || s.Function != "main.cache" {
		t.Errorf("the other fields were not read: count %d, collections %d, site %q", g.Count, h.Collections, s.Function)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, k := range []string{"heap_max_mib", "alloc_mib_per_s", "heap_start_mib", "heap_end_mib", "heap_live_mib",
		"live_start_mib", "live_end_mib", "slope_mib_per_s", "inuse_start_mib", "inuse_end_mib", `"mib_per_s"`} {
		if !strings.Contains(out, k) {
			t.Errorf("run.json written without %s", k)
		}
	}
	if strings.Contains(out, "_mb") || strings.Contains(out, `"mb_per_s"`) {
		t.Errorf("run.json written with an old *_mb key:\n%s", out)
	}
	back, err := Read(&b)
	if err != nil || back.GC.HeapMaxMiB != 48.5 || back.Heap.Sites[0].MiBPerS != 0.4 {
		t.Errorf("written and read back: %v, %+v", err, back)
	}
	var both GCSummary
	if err := json.Unmarshal([]byte(`{"heap_max_mb": 1, "heap_max_mib": 2}`), &both); err != nil || both.HeapMaxMiB != 2 {
		t.Errorf("both keys: heap max %g (%v); want the new key's 2", both.HeapMaxMiB, err)
	}
}
