package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestVerdictHotNamesTheLibraryFunction: a hot user function whose cost
// a library function holds (runfmt.HotFunc.LibraryFunc) is printed with
// that function, its file and line, under "library X under your Y"; a
// function without a dependency under it says "most in" its entry and
// that function.
func TestVerdictHotNamesTheLibraryFunction(t *testing.T) {
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Requests: 100, RPS: 10},
		Hot: []runfmt.HotFunc{
			{Function: "import_rows", File: "/srv/flaskform/app.py", CumPct: 85, CPUUsPerRequest: 60, CumUsPerRequest: 7500, UserCode: true, AttributedUsReq: 7440,
				Library: "werkzeug", LibraryUsPerRequest: 7300,
				LibraryFunc: &runfmt.LibraryFunc{Function: "MultipartDecoder.next_event", File: "/usr/lib/python3/site-packages/werkzeug/sansio/multipart.py", Line: 174, UsPerRequest: 5600}},
			{Function: "export_orders", File: "/srv/flaskapp/app.py", CumPct: 10, CPUUsPerRequest: 10, CumUsPerRequest: 900, UserCode: true, AttributedUsReq: 890,
				AttributedSample: "dumps",
				LibraryFunc:      &runfmt.LibraryFunc{Function: "_make_iterencode.<locals>._iterencode_dict", File: "/usr/lib/python3.11/json/encoder.py", Line: 377, UsPerRequest: 800}},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"library werkzeug under your import_rows: 7.30 ms, most in MultipartDecoder.next_event (sansio/multipart.py:174) 5.60 ms",
		"most in dumps → _make_iterencode.<locals>._iterencode_dict (json/encoder.py:377) 800.0 µs",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the verdict lacks %q:\n%s", want, b.String())
		}
	}
}
