package report

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// The goldens of every writer, rendered from runs and comparisons that
// perflab wrote (testdata/README.md says how each was made). Each output
// is a golden of its own, named after the writer that printed it, so a
// diff names the writer it comes from. `go test ./internal/report -update`
// rewrites them all; read each diff before committing it.
//
// HTML pages are golden as their outline (htmlOutline): what they say,
// section by section and row by row, not their styles.

// storedRuns are runs of this build, one of each kind a command writes,
// then runs of earlier builds, from schema 1 on: today's writers must go on
// rendering what those wrote.
var storedRuns = []struct{ name, file string }{
	{"demo", "testdata/page/demo.json"},         // perflab demo: four endpoints, a ledger, findings
	{"fmtprint", "testdata/page/fmtprint.json"}, // a Go service at its 1-core budget
	{"slo", "testdata/slo/run.json"},            // perflab run --slo, one objective missed
	{"findmax", "testdata/findmax/run.json"},    // perflab run --find-max --slo
	{"batch", "testdata/batch/run.json"},        // perflab run -- a batch program
	{"bench", "testdata/bench/run.json"},        // perflab bench of testdata/bench/pair
	{"profile", "testdata/profile/run.json"},    // perflab profile --pprof --pid, with its CPU profile
	{"schema2", "testdata/schema2/run.json"},    // the demo as a schema 2 perflab wrote it
	{"schema1-demo", "testdata/schemas/schema1-demo.json"},
	{"schema2-fmtprint-slo", "testdata/schemas/schema2-fmtprint-slo.json"},
	{"schema3-bench", "testdata/schemas/schema3-bench.json"},
	{"schema4-batch", "testdata/schemas/schema4-batch.json"},
	{"schema4-demo", "testdata/schemas/schema4-demo.json"},
	{"schema4-findmax", "testdata/schemas/schema4-findmax.json"},
}

// TestRunWritersGolden renders each stored run with every writer perflab
// uses for a run of its kind.
func TestRunWritersGolden(t *testing.T) {
	flame := sampleFlame(t)
	for _, sr := range storedRuns {
		t.Run(sr.name, func(t *testing.T) {
			r, err := runfmt.ReadFile(sr.file)
			if err != nil {
				t.Fatal(err)
			}
			dir := "perflab-runs/" + r.ID
			if sr.name == "profile" {
				dir = filepath.Dir(sr.file) // the summary reads the CPU profile
			}
			goldenOutputs(t, runOutputs(r, dir, flame, sr.name == "demo"))
		})
	}
}

// TestStoredSchemasRead: each stored run of an earlier build reads with
// the schema version that build wrote, and has the parts of its kind, so
// its goldens show those parts rendered.
func TestStoredSchemasRead(t *testing.T) {
	for _, tc := range []struct {
		file    string
		version int
		has     func(r *runfmt.Run) bool
	}{
		{"schemas/schema1-demo.json", 1, func(r *runfmt.Run) bool { return len(r.Findings) > 0 && len(r.Hot) > 0 && r.Load.Histogram != "" }},
		{"schema2/run.json", 2, func(r *runfmt.Run) bool { return len(r.Findings) > 0 && r.Time != nil }},
		{"schemas/schema2-fmtprint-slo.json", 2, func(r *runfmt.Run) bool { return len(r.Load.SLO) == 2 && len(r.Findings) > 0 }},
		{"schemas/schema3-bench.json", 3, func(r *runfmt.Run) bool { return r.Bench != nil && len(r.Bench.Benchmarks) == 2 }},
		{"schemas/schema4-batch.json", 4, func(r *runfmt.Run) bool { return r.Batch != nil && r.Batch.Threads != nil && len(r.Findings) > 0 }},
		{"schemas/schema4-demo.json", 4, func(r *runfmt.Run) bool { return r.Ledger != nil && r.Endpoints != nil && r.Answer == nil }},
		{"schemas/schema4-findmax.json", 4, func(r *runfmt.Run) bool { return r.FindMax != nil && len(r.FindMax.Steps) > 2 }},
	} {
		r, err := runfmt.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if r.SchemaVersion != tc.version || !tc.has(r) {
			t.Errorf("%s: schema %d; want schema %d with the parts of its kind", tc.file, r.SchemaVersion, tc.version)
		}
	}
}

// output is one writer's output of a golden test: ext names its golden,
// html says it is a page, golden as its outline.
type output struct {
	ext   string
	write func(io.Writer) error
	html  bool
}

// runOutputs are the writers perflab uses for r, as the commands call
// them: a service's run (run, demo, show; with --full the headline, the
// find-max steps, the load and the verdict), a batch program's, a
// benchmark run, a profile-only capture. Every kind has its report.html,
// as the lab writes it (WriteHTMLFlames); with ui, also its page in the
// UI (WriteHTMLWith with breadcrumbs and the UI's links).
func runOutputs(r *runfmt.Run, dir string, flame []byte, ui bool) []output {
	start := r.Started
	if start.IsZero() {
		start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	mopt := MarkdownOptions{RunsDir: "perflab-runs"}
	html := output{".report.html.txt", func(w io.Writer) error { return WriteHTMLFlames(w, r, Flames{CPU: flame}) }, true}
	switch {
	case r.Bench != nil:
		return []output{
			{".bench.txt", func(w io.Writer) error { return WriteBenchText(w, r, dir) }, false},
			{".bench.md", func(w io.Writer) error { return WriteBenchMarkdown(w, r, mopt) }, false},
			{".junit.xml", func(w io.Writer) error {
				return WriteJUnit(w, "perflab bench "+r.Name, BenchCases(r), start, 42*time.Second)
			}, false},
			html,
		}
	case r.Batch != nil:
		return []output{
			{".batch.txt", func(w io.Writer) error { return WriteBatchText(w, r, dir) }, false},
			html,
		}
	}
	var outs []output
	if r.Load == nil {
		outs = append(outs, output{".profile.txt", func(w io.Writer) error {
			tops, err := profileTops(r, dir)
			if err != nil {
				return err
			}
			return WriteProfileSummary(w, r, dir, tops)
		}, false})
	}
	outs = append(outs,
		output{".page.txt", func(w io.Writer) error { return WriteRunPage(w, r, dir) }, false},
		output{".headline.txt", func(w io.Writer) error { return WriteHeadline(w, r) }, false})
	if r.FindMax != nil {
		outs = append(outs, output{".findmax.txt", func(w io.Writer) error { return WriteFindMax(w, r, dir, false) }, false})
	}
	if r.Load != nil {
		outs = append(outs, output{".load.txt", func(w io.Writer) error { return WriteLoadText(w, r.Load) }, false})
	}
	outs = append(outs,
		output{".verdict.txt", func(w io.Writer) error { return WriteVerdict(w, r, dir) }, false},
		output{".md", func(w io.Writer) error { return WriteRunMarkdown(w, r, dir, mopt) }, false})
	if r.Load != nil && len(r.Load.SLO) > 0 {
		outs = append(outs,
			output{".slo.txt", func(w io.Writer) error { return WriteSLO(w, r.Load.SLO) }, false},
			output{".junit.xml", func(w io.Writer) error {
				return WriteJUnit(w, "perflab run "+r.Name, SLOCases(r.Load.SLO), start, 42*time.Second)
			}, false})
	}
	outs = append(outs, html)
	if ui {
		outs = append(outs, output{".ui.html.txt", func(w io.Writer) error { return WriteHTMLWith(w, r, uiOptions(r, flame)) }, true})
	}
	return outs
}

// uiOptions are the options perflab ui renders a run's page with.
func uiOptions(r *runfmt.Run, flame []byte) HTMLOptions {
	return HTMLOptions{
		Flame:     flame,
		Crumbs:    []Crumb{{Label: "runs", Href: "/"}, {Label: r.Name, Href: "/?name=" + r.Name}, {Label: r.ID}},
		FlameURL:  func(fn string) string { return "flame#focus=" + fn },
		SourceURL: func(fn string) string { return "pprof/cpu/source?f=" + fn },
		FilesHref: "files/",
	}
}

// TestCompareWritersGolden renders comparisons perflab wrote (--json) with
// every writer of a comparison: ab of tolower's buggy and fixed builds (an
// improvement), the same runs compared the other way round with --fail-on
// rules crossed (a regression), and ab of a batch program's two builds.
func TestCompareWritersGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mopt  MarkdownOptions
		flame bool
	}{
		{"improvement", MarkdownOptions{RunsDir: "perflab-runs", Page: "compare.html"}, true},
		{"regression", MarkdownOptions{RunsURL: "https://ci.example.com/runs", JobURL: "https://github.com/o/r/actions/runs/1"}, true},
		{"batch", MarkdownOptions{RunsDir: "perflab-runs"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c runfmt.Comparison
			readJSON(t, "testdata/compare/"+tc.name+".json", &c)
			var flame []byte
			if tc.flame {
				var b bytes.Buffer
				if err := analysis.WriteDiffFlameHTML(&b, diffProfile(3), diffProfile(1), 1000, 1000, analysis.FlameOptions{Title: CompareFlameTitle(&c)}); err != nil {
					t.Fatal(err)
				}
				flame = b.Bytes()
			}
			start := time.Date(2026, 12, 7, 21, 6, 0, 0, time.UTC)
			goldenOutputs(t, []output{
				{".txt", func(w io.Writer) error { return WriteCompareText(w, &c) }, false},
				{".md", func(w io.Writer) error { return WriteCompareMarkdown(w, &c, tc.mopt) }, false},
				{".junit.xml", func(w io.Writer) error {
					return WriteJUnit(w, "perflab compare", ThresholdCases(&c), start, 42*time.Second)
				}, false},
				{".html.txt", func(w io.Writer) error { return WriteCompareHTML(w, &c, flame) }, true},
			})
		})
	}
}

// TestBenchCompareWritersGolden renders perflab bench --git's comparison
// of testdata/bench/pair before and after AlgorithmTwo copies its input
// (one allocation more, a --fail-on rule crossed) with every writer of a
// benchmark comparison.
func TestBenchCompareWritersGolden(t *testing.T) {
	var c runfmt.BenchComparison
	readJSON(t, "testdata/benchcompare/comparison.json", &c)
	start := time.Date(2026, 12, 7, 20, 58, 27, 0, time.UTC)
	goldenOutputs(t, []output{
		{".txt", func(w io.Writer) error { return WriteBenchCompareText(w, &c) }, false},
		{".md", func(w io.Writer) error {
			return WriteBenchCompareMarkdown(w, &c, MarkdownOptions{RunsDir: "perflab-runs"})
		}, false},
		{".junit.xml", func(w io.Writer) error {
			return WriteJUnit(w, "perflab bench", BenchCheckCases(&c), start, 42*time.Second)
		}, false},
		{".html.txt", func(w io.Writer) error { return WriteBenchCompareHTML(w, &c) }, true},
	})
}

// goldenOutputs checks each output against its golden. A writer must
// write the same bytes each time it is called (no map order, no clock):
// each is rendered twice.
func goldenOutputs(t *testing.T, outs []output) {
	t.Helper()
	for _, o := range outs {
		var a, b bytes.Buffer
		if err := o.write(&a); err != nil {
			t.Errorf("%s: %v", o.ext, err)
			continue
		}
		if err := o.write(&b); err != nil {
			t.Errorf("%s: %v", o.ext, err)
			continue
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renderings differ: the writer depends on map order or the clock", o.ext)
		}
		got := a.Bytes()
		if o.html {
			got = htmlOutline(t, got)
		}
		golden(t, o.ext, got)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := runfmt.Decode(f, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// diffProfile is a small CPU profile of tolower's handler, its search
// taking scale times as long as its other work, for the comparison
// page's differential flame graph.
func diffProfile(scale int64) *profile.Profile {
	names := []string{"main.search", "strings.ToLower", "main.handler.func1", "net/http.(*conn).serve"}
	var fs []*profile.Function
	var locs []*profile.Location
	for i, n := range names {
		f := &profile.Function{ID: uint64(i + 1), Name: n, SystemName: n, Filename: "/src/tolower/main.go"}
		fs = append(fs, f)
		locs = append(locs, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: f, Line: int64(10 + i)}}})
	}
	sample := func(v int64, ls ...*profile.Location) *profile.Sample {
		return &profile.Sample{Location: ls, Value: []int64{v, v * 10_000_000}}
	}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		Function: fs, Location: locs,
		Sample: []*profile.Sample{
			sample(100*scale, locs[1], locs[0], locs[2], locs[3]),
			sample(10, locs[0], locs[2], locs[3]),
			sample(30, locs[3]),
		},
	}
}

// writerGoldens names, for each exported writer of this package, one of
// its goldens.
var writerGoldens = map[string]string{
	"WriteBatchText":            "TestRunWritersGolden/batch.batch.txt.golden",
	"WriteBenchCompareHTML":     "TestBenchCompareWritersGolden.html.txt.golden",
	"WriteBenchCompareMarkdown": "TestBenchCompareWritersGolden.md.golden",
	"WriteBenchCompareText":     "TestBenchCompareWritersGolden.txt.golden",
	"WriteBenchMarkdown":        "TestRunWritersGolden/bench.bench.md.golden",
	"WriteBenchText":            "TestRunWritersGolden/bench.bench.txt.golden",
	"WriteCompareHTML":          "TestCompareWritersGolden/regression.html.txt.golden",
	"WriteCompareMarkdown":      "TestCompareWritersGolden/regression.md.golden",
	"WriteCompareText":          "TestCompareWritersGolden/regression.txt.golden",
	"WriteFindMax":              "TestRunWritersGolden/findmax.findmax.txt.golden",
	"WriteHTMLFlames":           "TestRunWritersGolden/demo.report.html.txt.golden",
	"WriteHTMLWith":             "TestRunWritersGolden/demo.ui.html.txt.golden",
	"WriteHeadline":             "TestRunWritersGolden/demo.headline.txt.golden",
	"WriteJUnit":                "TestRunWritersGolden/slo.junit.xml.golden",
	"WriteLoadText":             "TestLoadTextGolden/open.txt.golden",
	"WriteProfileSummary":       "TestRunWritersGolden/profile.profile.txt.golden",
	"WriteRunMarkdown":          "TestRunWritersGolden/demo.md.golden",
	"WriteRunPage":              "TestRunWritersGolden/demo.page.txt.golden",
	"WriteRunsTable":            "TestRunsGolden.txt.golden",
	"WriteSLO":                  "TestRunWritersGolden/slo.slo.txt.golden",
	"WriteSweepText":            "TestWriteSweepText.txt.golden",
	"WriteVerdict":              "TestRunWritersGolden/demo.verdict.txt.golden",
}

// TestEveryWriterHasAGolden: every exported Write function of the package
// (its non-test files) is in writerGoldens, with a golden that exists.
func TestEveryWriterHasAGolden(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range pkgs["report"].Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Write") || !fd.Name.IsExported() {
				continue
			}
			seen[fd.Name.Name] = true
			g, ok := writerGoldens[fd.Name.Name]
			if !ok {
				t.Errorf("%s has no golden: render it in a golden test and name the golden in writerGoldens", fd.Name.Name)
				continue
			}
			if _, err := os.Stat(filepath.Join("testdata", g)); err != nil {
				t.Errorf("%s: %v", fd.Name.Name, err)
			}
		}
	}
	for w := range writerGoldens {
		if !seen[w] {
			t.Errorf("writerGoldens names %s, which the package does not declare", w)
		}
	}
}

// profileTops are a profile run's CPU top tables, as perflab profile
// computes them for its summary.
func profileTops(r *runfmt.Run, dir string) (map[string]TopTable, error) {
	tops := map[string]TopTable{}
	for _, pr := range r.Profiles {
		if pr.Type != runfmt.ProfileCPU || pr.Samples == 0 {
			continue
		}
		top, err := analysis.TopFile(filepath.Join(dir, pr.File), analysis.TopOptions{User: true, N: 10})
		if err != nil {
			return nil, err
		}
		tops[pr.File] = top
	}
	return tops, nil
}
