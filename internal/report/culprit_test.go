package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"perflab/internal/runfmt"
)

// culpritRun is a run of a service with four endpoints, its findings and
// hot functions carrying culprit lines.
func culpritRun() *runfmt.Run {
	line := runfmt.SourceLine{File: "/src/api/handlers.go", Line: 42, Text: "fmt.Println(doc)", CostUsPerRequest: 1310, Pct: 95,
		Context: []string{"func logDoc(doc *Doc) {", "\t// debug", "\tfmt.Println(doc)", "}"}, ContextStart: 40}
	t := func(path string, n int64, p50 float64) runfmt.TargetStats {
		return runfmt.TargetStats{Target: "GET http://127.0.0.1:8080" + path, Requests: n, Latency: runfmt.Latency{P50: p50, P99: 4 * p50}, Status: map[string]int64{"200": n}}
	}
	return &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete, ID: "x",
		Load: &runfmt.LoadResult{Requests: 400, RPS: 40, Targets: []runfmt.TargetStats{
			t("/search?q=steel", 100, 1.2), t("/render", 100, 2.5), t("/api/item?id=7", 100, 3.1), t("/ingest", 100, 0.9)}},
		Findings: []runfmt.Finding{{Kind: runfmt.FindingFormatting, Figures: runfmt.Figures{runfmt.FigShare: 0.95, runfmt.FigCPUPerRequest: 1379},
			Advice: runfmt.AdviceBuildStrings, Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: "main.logDoc"},
				{Role: runfmt.RoleEntry, Function: "fmt.Println", Figures: runfmt.Figures{runfmt.FigShare: 0.95}}}},
			Lines: []runfmt.SourceLine{line}}},
		Hot: []runfmt.HotFunc{{Function: "main.logDoc", File: "/src/api/handlers.go", UserCode: true, CumPct: 95, CPUUsPerRequest: 10, CumUsPerRequest: 1379, Lines: []runfmt.SourceLine{line}}},
		Endpoints: &runfmt.Endpoints{Source: "x", ExplainedPct: 88, Handlers: []runfmt.EndpointCPU{
			{Handler: "main.(*app).handleItem", Targets: []string{"GET http://127.0.0.1:8080/api/item?id=7"}, CPUPct: 40, CPUUsPerRequest: 1600, PerTargetRequest: true, Owner: "main.debugPrintItem", OwnerPct: 39},
			{Handler: "main.(*app).handleSearch", Targets: []string{"GET http://127.0.0.1:8080/search?q=steel"}, CPUPct: 30, CPUUsPerRequest: 1200, PerTargetRequest: true, Owner: "main.searchLower", OwnerPct: 28},
			{Handler: "main.main.func1", CPUPct: 5, CPUUsPerRequest: 50},
		}, Note: "no handler's name matches GET http://127.0.0.1:8080/render"},
	}
}

func TestVerdictCulpritLinesAndEndpoints(t *testing.T) {
	var b bytes.Buffer
	if err := WriteVerdict(&b, culpritRun(), "dir"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"     handlers.go:42  fmt.Println(doc)  — 1.31 ms/request, 95%",
		"at handlers.go:42  fmt.Println(doc)",
		"Per endpoint (CPU from x: 88% of the CPU; the rest, 12%,",
		"no handler's name matches GET http://127.0.0.1:8080/render",
		"* per request of the whole load",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	for _, re := range []string{
		`(?m)^  GET /api/item\?id=7 +100 +0 +3\.10 ms +12\.40 ms +1\.60 ms +40% +main\.\(\*app\)\.handleItem → main\.debugPrintItem 39%$`,
		`(?m)^  GET /render +100 +0 +2\.50 ms +10\.00 ms +- +- +$`,
		`(?m)^  \(not a load target\) +- +- +- +- +50\.0 µs\* +5\.0% +main\.main\.func1$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("verdict lacks a row matching %s:\n%s", re, out)
		}
	}
}

func TestLoadTextPerTarget(t *testing.T) {
	var b bytes.Buffer
	r := culpritRun().Load
	r.Targets[3].Errors, r.Targets[3].Status = 5, map[string]int64{"200": 95, "503": 5}
	r.Targets[3].ErrorKinds = map[string]int64{"status-5xx": 5}
	if err := WriteLoadText(&b, r); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  GET /ingest +100 +5 +900\.0 µs +- +3\.60 ms +- +200×95 503×5$`).MatchString(b.String()) {
		t.Errorf("no per-target row for /ingest:\n%s", b.String())
	}
}

func TestHTMLSnippetsMerge(t *testing.T) {
	// Two culprit lines of one function, 4 lines apart: one snippet.
	a := runfmt.SourceLine{File: "f.go", Line: 10, Pct: 60, Context: []string{"a", "b", "c", "d", "e"}, ContextStart: 8}
	b := runfmt.SourceLine{File: "f.go", Line: 14, Pct: 40, Context: []string{"e", "f", "g", "h", "i"}, ContextStart: 12}
	c := runfmt.SourceLine{File: "g.go", Line: 3, Pct: 5, Context: []string{"x"}, ContextStart: 3}
	v := linesView([]runfmt.SourceLine{a, b, c})
	if len(v) != 2 || len(v[0].Notes) != 2 || len(v[0].Source) != 9 || v[0].Source[8].N != 16 {
		t.Fatalf("snippets %+v; want f.go's lines 8-16 in one with two notes, then g.go", v)
	}
	hot := 0
	for _, s := range v[0].Source {
		if s.Hot {
			hot++
		}
	}
	if hot != 2 {
		t.Errorf("%d hot lines in the merged snippet, want 2", hot)
	}
}

func TestHTMLCulpritSnippetAndEndpoints(t *testing.T) {
	var b bytes.Buffer
	if err := writeHTML(&b, culpritRun(), nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<span class="mono">/src/api/handlers.go:42</span> — 1.31 ms/request, 95%`,
		`<span class="hot"><span class="ln">42</span>	fmt.Println(doc)<span class="lcost">1.31 ms/request, 95%</span></span>`,
		`<span><span class="ln">40</span>func logDoc(doc *Doc) {</span>`,
		`<section id="endpoints">`, `main.(*app).handleItem → main.debugPrintItem 39%`,
		`<p class="muted">CPU from x: 88% of the CPU; the rest, 12%,`,
		`<div class="muted mono">at handlers.go:42  fmt.Println(doc)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestLongCulpritLineCutOnACharacter: a long source line is shortened on a
// character boundary, never into invalid UTF-8.
func TestLongCulpritLineCutOnACharacter(t *testing.T) {
	text := `log.Printf("` + strings.Repeat("é", 100) + `")`
	got := lineText(runfmt.SourceLine{File: "/src/a.go", Line: 3, Text: text, Pct: 50})
	if !utf8.ValidString(got) || !strings.Contains(got, "…") {
		t.Errorf("lineText of a long line = %q; want it shortened on a character, ending in …", got)
	}
}
