package findings

import (
	"slices"
	"strings"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// TestHotUserFunctionNamesTheLibraryFunctionHoldingIt: a Flask handler
// whose cost is werkzeug's multipart parser, reached through
// request.form (a cached_property's __get__ and three frames that pass
// the call on): its finding names the parser's decoder that holds most
// of it, with its file and its costliest line, beside the entry, and so
// does the hot table.
func TestHotUserFunctionNamesTheLibraryFunctionHoldingIt(t *testing.T) {
	const wz = "/usr/lib/python3/site-packages/werkzeug/"
	top := []string{"Request._load_form_data " + wz + "wrappers/request.py:260", "Request.form " + wz + "wrappers/request.py:430",
		"cached_property.__get__ " + wz + "utils.py:107", "import_rows /srv/app/app.py:12", "Flask.dispatch_request /usr/lib/python3/site-packages/flask/app.py:880",
		"SyncWorker.handle /usr/lib/python3/site-packages/gunicorn/workers/sync.py:136"}
	parse := append([]string{"MultiPartParser.parse " + wz + "formparser.py:380"}, top...)
	var stacks [][]string
	add := func(n int, leaf ...string) {
		for range n {
			stacks = append(stacks, append(slices.Clone(leaf), parse...))
		}
	}
	add(40, "MultipartDecoder._parse_headers "+wz+"sansio/multipart.py:230", "MultipartDecoder.next_event "+wz+"sansio/multipart.py:163")
	add(15, "MultipartDecoder.next_event "+wz+"sansio/multipart.py:175")
	add(15, "MultipartDecoder.next_event "+wz+"sansio/multipart.py:196")
	add(20)
	for range 10 {
		stacks = append(stacks, slices.Clone(top[3:]))
	}
	cpu := stackProfile(stacks...)
	fs := Findings(FindingInput{CPU: cpu, Requests: 100, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
	hot := analysis.HotFor(cpu, 100, 5, analysis.UserCode{})
	AttachLines(cpu, fs, hot, nil, analysis.UserCode{})
	i := slices.IndexFunc(fs, func(f runfmt.Finding) bool { c, _ := f.Culprit(); return c.Function == "import_rows" })
	if i < 0 {
		t.Fatalf("no finding names import_rows: %q", titles(fs))
	}
	f := fs[i]
	held := funcsOf(f, runfmt.RoleLibraryFunc)
	if len(held) != 1 || held[0].Function != "MultipartDecoder.next_event" || held[0].Line != 163 || !strings.HasSuffix(held[0].File, "sansio/multipart.py") {
		t.Fatalf("library function %+v; want MultipartDecoder.next_event at sansio/multipart.py:163", held)
	}
	if sh := held[0].Figures[runfmt.FigShare]; sh < 0.69 || sh > 0.71 {
		t.Errorf("its share %.2f; want 0.70", sh)
	}
	if es := funcsOf(f, runfmt.RoleEntry); len(es) != 1 || es[0].Function != "cached_property.__get__" {
		t.Errorf("entry %+v; want cached_property.__get__", es)
	}
	if !slices.Contains(f.Names(), "MultipartDecoder.next_event") {
		t.Errorf("names %v; want the library function among them", f.Names())
	}
	t.Logf("%s\n%s", title(f), detail(f))
	for _, w := range []string{title(f), detail(f)} {
		if !strings.Contains(w, "MultipartDecoder.next_event (sansio/multipart.py:163)") {
			t.Errorf("%q does not name MultipartDecoder.next_event (sansio/multipart.py:163)", w)
		}
	}
	j := slices.IndexFunc(hot, func(h runfmt.HotFunc) bool { return h.Function == "import_rows" })
	if j < 0 || hot[j].LibraryFunc == nil {
		t.Fatalf("hot table %+v; want import_rows with its library function", hot)
	}
	if lf := hot[j].LibraryFunc; lf.Function != "MultipartDecoder.next_event" || lf.Line != 163 || lf.UsPerRequest <= 0 {
		t.Errorf("hot table's library function %+v; want MultipartDecoder.next_event at line 163 with its cost", lf)
	}
}

// funcsOf are the functions f names in role.
func funcsOf(f runfmt.Finding, role runfmt.Role) []runfmt.FuncEvidence {
	var out []runfmt.FuncEvidence
	for _, e := range f.Evidence.Functions {
		if e.Role == role {
			out = append(out, e)
		}
	}
	return out
}
