package cli

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// commandFormats is what each command that prints declares: its formats
// (the first the default) and whether --json is its alias of --format
// json. A command that prints and is not listed here, or a listed one
// that declares other formats, fails TestEveryCommandDeclaresItsFormats.
var commandFormats = map[string]struct {
	formats string
	json    bool
}{
	"perflab load":      {"text json", true},
	"perflab merge":     {"text json", true},
	"perflab run":       {"text json markdown junit", true},
	"perflab demo":      {"text json", true},
	"perflab runs":      {"text json", true},
	"perflab runs show": {"text json markdown", false},
	"perflab show":      {"text json markdown", false},
	"perflab profile":   {"text json", true},
	"perflab top":       {"text json", true},
	"perflab list":      {"text json", true},
	"perflab flame":     {"html collapsed speedscope", false},
	"perflab compare":   {"text json markdown junit", true},
	"perflab ab":        {"text json markdown junit", true},
	"perflab sweep":     {"text json markdown junit", true},
	"perflab bench":     {"text json markdown junit", true},
}

// walk calls fn on every command of the tree.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// TestEveryCommandDeclaresItsFormats: --format is the one flag value of
// this package wherever it appears, with the formats the table above
// lists, and --json appears only as its alias.
func TestEveryCommandDeclaresItsFormats(t *testing.T) {
	env, _, _ := testEnv()
	seen := map[string]bool{}
	walk(newRoot(env), func(c *cobra.Command) {
		path := c.CommandPath()
		want, listed := commandFormats[path]
		fl, js := c.Flags().Lookup("format"), c.Flags().Lookup("json")
		if fl == nil {
			if listed || js != nil {
				t.Errorf("%s: no --format (--json: %v); want %q", path, js != nil, want.formats)
			}
			return
		}
		seen[path] = true
		f, ok := fl.Value.(*formatFlag)
		if !ok {
			t.Errorf("%s: --format is a %T, not the package's formatFlag", path, fl.Value)
			return
		}
		var got []string
		for _, x := range f.formats {
			got = append(got, string(x))
			if formatHelp[x] == "" {
				t.Errorf("%s: format %s has no help", path, x)
			}
		}
		if strings.Join(got, " ") != want.formats || (js != nil) != want.json {
			t.Errorf("%s: formats %q, --json %v; want %q, --json %v", path, got, js != nil, want.formats, want.json)
		}
	})
	for path := range commandFormats {
		if !seen[path] {
			t.Errorf("%s: not in the command tree with a --format", path)
		}
	}
}

// TestUnsupportedFormatIsRefused: a format a command does not write exits
// 2 before anything runs, naming the command and its formats; so does
// --json beside another --format.
func TestUnsupportedFormatIsRefused(t *testing.T) {
	for path, want := range commandFormats {
		args := append(strings.Fields(strings.TrimPrefix(path, "perflab ")), "--format", "xml")
		code, out, errb := runMain(t, args...)
		wantMsg := "--format xml: " + path + " writes " + orList(strings.Fields(want.formats))
		if code != int(ExitUsage) || out != "" || !strings.Contains(errb, wantMsg) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", args, code, errb, wantMsg)
		}
	}
	root := twoBuilds(t)
	for _, args := range [][]string{
		{"compare", "--dir", root, "--json", "--format", "markdown", "old", "new"},
		{"compare", "--dir", root, "--format", "junit", "--json", "old", "new"},
		{"runs", "--dir", root, "--json", "--format", "text"},
	} {
		code, out, errb := runMain(t, args...)
		if code != int(ExitUsage) || out != "" || !strings.Contains(errb, "--json and --format") || !strings.Contains(errb, "give one") {
			t.Errorf("%q: exit %d, %q; want exit 2 and --json and --format refused together", args, code, errb)
		}
	}
	// --find-max prints its steps: text or json, refused before it starts.
	for _, f := range []string{"markdown", "junit"} {
		code, _, errb := runMain(t, "run", "--find-max", "--dir", t.TempDir(), "--format", f, "http://127.0.0.1:1/", "--", "true")
		if code != int(ExitUsage) || !strings.Contains(errb, "--find-max prints its steps as text or json") {
			t.Errorf("run --find-max --format %s: exit %d, %q; want exit 2", f, code, errb)
		}
	}
	// --json with --format json says the same twice: accepted.
	if code, out, errb := runMain(t, "runs", "--dir", root, "--json", "--format", "json"); code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("runs --json --format json: exit %d %s\n%s", code, errb, out)
	}
}

// checkFormat checks that out is a result in format f.
func checkFormat(t *testing.T, what string, f outputFormat, out string) {
	t.Helper()
	switch f {
	case formatJSON:
		if !json.Valid([]byte(out)) {
			t.Errorf("%s: --format json is not JSON:\n%.300s", what, out)
		}
	case formatJUnit:
		var doc struct {
			XMLName xml.Name
			Suites  []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.XMLName.Local != "testsuites" || len(doc.Suites) != 1 {
			t.Errorf("%s: --format junit is not a JUnit report (%v):\n%.300s", what, err, out)
		}
	case formatMarkdown:
		if !strings.HasPrefix(out, "#") || !strings.Contains(out, "|") {
			t.Errorf("%s: --format markdown is not a markdown summary:\n%.300s", what, out)
		}
	default:
		if strings.TrimSpace(out) == "" || json.Valid([]byte(out)) {
			t.Errorf("%s: --format %s printed %q", what, f, out)
		}
	}
}

// TestEveryFormatWrites: each command that reads stored runs or profiles
// writes each of its formats; --json prints what --format json does.
func TestEveryFormatWrites(t *testing.T) {
	root := twoBuilds(t)
	prof := cpuProfileFile(t)
	for _, tc := range []struct {
		args []string
		last []string // after the flags
	}{
		{[]string{"compare", "--dir", root}, []string{"old", "new"}},
		{[]string{"runs", "--dir", root}, nil},
		{[]string{"runs", "show", "--dir", root}, []string{"latest"}},
		{[]string{"top"}, []string{prof}},
		{[]string{"list"}, []string{"burnForProfile", prof}},
		{[]string{"flame"}, []string{prof}},
	} {
		path := "perflab " + strings.Join(tc.args[:1], " ")
		if tc.args[0] == "runs" && len(tc.args) > 1 && tc.args[1] == "show" {
			path += " show"
		}
		for _, f := range strings.Fields(commandFormats[path].formats) {
			args := append(append(append([]string{}, tc.args...), "--format", f), tc.last...)
			if f == string(formatHTML) {
				args = append(args, "-o", filepath.Join(t.TempDir(), "flame.html"))
			}
			code, out, errb := runMain(t, args...)
			if code != 0 {
				t.Errorf("%q: exit %d %s", args, code, errb)
				continue
			}
			if f != string(formatHTML) && f != string(formatCollapsed) && f != string(formatSpeedscope) {
				checkFormat(t, strings.Join(args, " "), outputFormat(f), out)
			} else if f != string(formatHTML) && out == "" {
				t.Errorf("%q: printed nothing", args)
			}
			if f == string(formatJSON) && commandFormats[path].json {
				alias := append(append(append([]string{}, tc.args...), "--json"), tc.last...)
				if _, byAlias, _ := runMain(t, alias...); byAlias != out {
					t.Errorf("%q prints other JSON than --format json", alias)
				}
			}
		}
	}
}

// TestReportViewsRenderEveryFormat: the renderers of a run, a comparison
// and a bench run cover every format their commands declare (run, compare,
// ab, sweep and bench run for minutes: their formats are checked here).
func TestReportViewsRenderEveryFormat(t *testing.T) {
	env, _, _ := testEnv()
	o := reportFlags{format: &formatFlag{cmd: &cobra.Command{Use: "test"}, start: time.Now()}}
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "svc", ID: "20250304-050600-svc", Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Model: "closed", Requests: 1000, RPS: 500, Latency: runfmt.Latency{P50: 1, P99: 3},
			SLO: []runfmt.SLOCheck{{Objective: "p99<5ms", Metric: "p99", Limit: 5, Unit: "ms", Measured: 3, Pass: true}}},
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}}
	c := &runfmt.Comparison{Base: runfmt.Group{Label: "old"}, New: runfmt.Group{Label: "new"},
		Verdict: &runfmt.Verdict{Status: runfmt.VerdictPass}}
	bench := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "bench-x", ID: "20250304-050600-bench-x", Status: runfmt.StatusComplete, Bench: &runfmt.Bench{}}
	bv := benchViews(bench, t.TempDir(), report.MarkdownOptions{})
	bv[formatJUnit] = o.junitView("perflab bench", report.BenchCases(bench))
	mopt := o.markdownOptions(env, "runs")
	for what, v := range map[string]views{
		"run":        o.runViews(r, t.TempDir(), mopt),
		"comparison": o.comparisonViews(c, mopt, func(w io.Writer) error { return report.WriteCompareText(w, c) }),
		"bench":      bv,
	} {
		for _, f := range reportFormats {
			var b strings.Builder
			o.format.value = f
			if err := o.format.write(&b, v); err != nil {
				t.Errorf("%s --format %s: %v", what, f, err)
				continue
			}
			if what != "bench" || f != formatMarkdown { // a bench run without benchmarks has no table
				checkFormat(t, what, f, b.String())
			}
		}
	}
	if !slices.Equal(reportFormats, []outputFormat{formatText, formatJSON, formatMarkdown, formatJUnit}) {
		t.Errorf("reportFormats = %v", reportFormats)
	}
}
