package analysis

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// buildLines makes a CPU profile (nanoseconds) from stacks written root
// first as "fn@file:line;fn@file:line": one function per name and file, one
// location per frame. start gives functions' first lines.
func buildLines(t testing.TB, start map[string]int64, samples map[string]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1,
		TimeNanos: time.Now().Add(time.Hour).UnixNano(),
	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for stack, v := range samples {
		frames := strings.Split(stack, ";")
		var ls []*profile.Location
		for i := len(frames) - 1; i >= 0; i-- {
			fr := frames[i]
			name, where, _ := strings.Cut(fr, "@")
			file, ln, _ := strings.Cut(where, ":")
			line, _ := strconv.ParseInt(ln, 10, 64)
			fn := funcs[name+file]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file, StartLine: start[name]}
				funcs[name+file] = fn
				p.Function = append(p.Function, fn)
			}
			l := locs[fr]
			if l == nil {
				l = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: line}}}
				locs[fr] = l
				p.Location = append(p.Location, l)
			}
			ls = append(ls, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: []int64{v}})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

const handlersGo = `package main

import "fmt"

// logRequest prints the whole response.
func logRequest(doc *Doc) {
	n := len(doc.Body)
	fmt.Println(doc)
	_ = n
}

func handle(doc *Doc) {
	logRequest(doc)
	render(doc)
}
`

// handlersProfile: handle calls logRequest (line 13), whose line 8 prints
// (fmt.Println), and render.
func handlersProfile(t testing.TB, file string) *profile.Profile {
	return buildLines(t, map[string]int64{"main.logRequest": 6, "main.handle": 12}, map[string]int64{
		"main.handle@" + file + ":13;main.logRequest@" + file + ":8;fmt.Println@/go/src/fmt/print.go:314;fmt.(*pp).printValue@/go/src/fmt/print.go:812": 900,
		"main.handle@" + file + ":13;main.logRequest@" + file + ":8;fmt.Println@/go/src/fmt/print.go:314":                                               50,
		"main.handle@" + file + ":13;main.logRequest@" + file + ":7":                                                                                    30,
		"main.handle@" + file + ":14;main.render@" + file + ":20":                                                                                       20,
	})
}

func writeSource(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestListLinesWithSource(t *testing.T) {
	file := writeSource(t, t.TempDir(), "handlers.go", handlersGo)
	l, err := List(handlersProfile(t, file), `logRequest`, ListOptions{Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Funcs) != 1 {
		t.Fatalf("%d functions listed, want 1", len(l.Funcs))
	}
	f := l.Funcs[0]
	if f.Name != "main.logRequest" || f.Flat != 30 || f.Cum != 980 || l.Total != 1000 {
		t.Errorf("logRequest flat %d cum %d of %d; want 30, 980 of 1000", f.Flat, f.Cum, l.Total)
	}
	byLine := map[int64]ListedLine{}
	for _, ln := range f.Lines {
		byLine[ln.Line] = ln
	}
	if first := f.Lines[0].Line; first != 6 {
		t.Errorf("listing starts at line %d, want the function's first line 6", first)
	}
	if ln := byLine[8]; ln.Cum != 950 || ln.Flat != 0 || ln.Text != "\tfmt.Println(doc)" || ln.Mismatch {
		t.Errorf("line 8 = %+v; want cum 950, the Println line, matching", ln)
	}
	if ln := byLine[7]; ln.Flat != 30 || ln.Cum != 30 {
		t.Errorf("line 7 = %+v; want flat and cum 30", ln)
	}
	if len(f.Calls) == 0 || f.Calls[0].Function != "fmt.Println" || f.Calls[0].Line != 8 || f.Calls[0].Cum != 950 {
		t.Errorf("calls %+v; want line 8 -> fmt.Println 950 first", f.Calls)
	}
	if len(f.Callees) == 0 || f.Callees[0].Function != "fmt.(*pp).printValue" || f.Callees[0].Flat != 900 {
		t.Errorf("callee lines %+v; want printValue's line with 900 first", f.Callees)
	}
	var out bytes.Buffer
	if err := l.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ROUTINE ======================== main.logRequest in " + file,
		"fmt.Println(doc)", "95ns", "line 8 -> fmt.Println", "printValue"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "!") {
		t.Errorf("a line is marked as changed in an unchanged file:\n%s", out.String())
	}
}

func TestListMissingSource(t *testing.T) {
	l, err := List(handlersProfile(t, "/nowhere/handlers.go"), `logRequest`, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := l.Funcs[0]
	if f.Source == nil || f.Source.Err == nil {
		t.Fatalf("source %+v: want an error for a missing file", f.Source)
	}
	if len(f.Lines) != 2 || f.Lines[0].Line != 7 || f.Lines[1].Line != 8 {
		t.Errorf("lines %+v; want the sampled lines 7 and 8 only", f.Lines)
	}
	var out bytes.Buffer
	l.WriteText(&out)
	if !strings.Contains(out.String(), "source not found: /nowhere/handlers.go") {
		t.Errorf("listing does not say the source is missing:\n%s", out.String())
	}
}

func TestListSearchPath(t *testing.T) {
	// A binary built elsewhere (or with -trimpath) records a path that is
	// not on this machine; --source-path finds it by its suffix.
	dir := t.TempDir()
	writeSource(t, dir, "svc/handlers.go", handlersGo)
	l, err := List(handlersProfile(t, "github.com/acme/svc/handlers.go"), `logRequest`, ListOptions{Sources: &Sources{SearchPath: []string{dir}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := l.Funcs[0]; f.Source.Err != nil || f.Source.Path != filepath.Join(dir, "svc/handlers.go") {
		t.Errorf("source %+v; want it found under the search path", f.Source)
	}
}

func TestListChangedSource(t *testing.T) {
	// Two lines were added above logRequest after the build: line 8 is now
	// the blank line before it, and line 7 its doc comment.
	changed := strings.Replace(handlersGo, "import \"fmt\"\n", "import \"fmt\"\n\nvar debug = true\n", 1)
	file := writeSource(t, t.TempDir(), "handlers.go", changed)
	l, err := List(handlersProfile(t, file), `logRequest|handle`, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range l.Funcs {
		if f.Name != "main.logRequest" {
			continue
		}
		if !f.Changed {
			t.Errorf("logRequest not marked changed: %+v", f.Lines)
		}
		for _, ln := range f.Lines {
			if (ln.Line == 7 || ln.Line == 8) && !ln.Mismatch {
				t.Errorf("sampled line %d (%q) not marked as no longer matching", ln.Line, ln.Text)
			}
		}
		var out bytes.Buffer
		l.WriteText(&out)
		if !strings.Contains(out.String(), "       8!") || !strings.Contains(out.String(), "changed since the build") {
			t.Errorf("listing does not mark the changed lines:\n%s", out.String())
		}
		return
	}
	t.Fatal("logRequest not listed")
}

func TestListModifiedAfterProfile(t *testing.T) {
	file := writeSource(t, t.TempDir(), "handlers.go", handlersGo)
	p := handlersProfile(t, file)
	p.TimeNanos = time.Now().Add(-time.Hour).UnixNano()
	l, err := List(p, `logRequest`, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Funcs[0].Modified {
		t.Error("a source modified after the profile was taken is not noted")
	}
}

func TestListNoMatchNearNames(t *testing.T) {
	_, err := List(handlersProfile(t, "/x/handlers.go"), `logReqest`, ListOptions{})
	var nm *NoMatchError
	if !errors.As(err, &nm) {
		t.Fatalf("err %v; want a NoMatchError", err)
	}
	if len(nm.Near) == 0 || nm.Near[0] != "main.logRequest" {
		t.Errorf("near names %v; want main.logRequest first", nm.Near)
	}
	if !strings.Contains(err.Error(), `no function matches "logReqest"; near names: main.logRequest`) {
		t.Errorf("message %q", err)
	}
	if _, err := List(handlersProfile(t, "/x/h.go"), `(`, ListOptions{}); err == nil {
		t.Error("a bad regexp gives no error")
	}
}

func TestListWithoutLineNumbers(t *testing.T) {
	p := cpuProfile(t)
	for _, l := range p.Location {
		l.Line[0].Line = 0
	}
	l, err := List(p, `main\.search`, ListOptions{Requests: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !l.NoLines || len(l.Funcs) != 1 || l.Funcs[0].Cum != 400 || len(l.Funcs[0].Lines) != 0 {
		t.Fatalf("listing %+v; want no lines, main.search cum 400", l)
	}
	if c := l.Funcs[0].Callees; len(c) == 0 || c[0].Function != "runtime.mallocgc" || c[0].Flat != 200 {
		t.Errorf("callees %+v; want runtime.mallocgc 200 first", c)
	}
	var out bytes.Buffer
	l.WriteText(&out)
	if !strings.Contains(out.String(), "no line numbers") {
		t.Errorf("listing does not say the profile has no line numbers:\n%s", out.String())
	}
}

func TestListFileEqualsList(t *testing.T) {
	file := writeSource(t, t.TempDir(), "handlers.go", handlersGo)
	p := handlersProfile(t, file)
	a, err := List(p, "main", ListOptions{Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ListFile(writeProfile(t, "p.pb.gz", encode(t, p, true)), "main", ListOptions{Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	var wa, wb bytes.Buffer
	a.WriteText(&wa)
	b.WriteText(&wb)
	if wa.String() != wb.String() {
		t.Errorf("ListFile:\n%s\nList:\n%s", wb.String(), wa.String())
	}
}

func TestSourceMatches(t *testing.T) {
	dir := t.TempDir()
	py := writeSource(t, dir, "app/server.py", `class Mash:
    def __init__(self, d):
        self.t = {}
        for k, v in d.items():
            self.t[k] = v

    def get(self, k):
        return self.t[k]
`)
	rb := writeSource(t, dir, "app/server.rb", `class Mash
  def initialize(hash = {})
    hash.each do |k, v|
      @t[k] = v
    end
  end
end
`)
	for _, tc := range []struct {
		file, fn string
		line     int64
		ok       bool
	}{
		{py, "Mash.__init__", 5, true},
		{py, "Mash.__init__", 2, true},
		{py, "__init__", 4, true},
		{py, "Mash.__init__", 8, false},
		{py, "Mash.get", 8, true},
		{py, "Mash.__init__", 6, false}, // blank
		{py, "Mash.__init__", 99, false},
		{rb, "Mash#initialize", 4, true},
		{rb, "block in initialize", 4, true},
		{rb, "initialize", 3, true},
	} {
		f := (&Sources{}).File(tc.file)
		ok, known := f.Matches(tc.fn, tc.line)
		if !known || ok != tc.ok {
			t.Errorf("%s: %s line %d matches %t (known %t), want %t", filepath.Base(tc.file), tc.fn, tc.line, ok, known, tc.ok)
		}
	}
	if _, known := (&Sources{}).File(py).Matches("<lambda>", 3); known {
		t.Error("a <lambda> is checked against a def")
	}
}

func TestDefName(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		lang runfmt.Runtime
		want string
	}{
		{"main.(*server).search", "go", "search"},
		{"main.handler.func1", "go", "handler"},
		{"github.com/acme/api.(*Cache[...]).Get", "go", "Get"},
		{"main.(*app).routes.func2.1", "go", "routes"},
		{"main.init.0", "go", ""},
		{"Mash.__init__", "python", "__init__"},
		{"<module>", "python", ""},
		{"block (2 levels) in Mash#initialize", "ruby", "initialize"},
		{"respond_to?", "ruby", "respond_to?"},
	} {
		if got := defName(tc.fn, tc.lang); got != tc.want {
			t.Errorf("defName(%q, %s) = %q, want %q", tc.fn, tc.lang, got, tc.want)
		}
	}
}

// FuzzSourceMatches feeds arbitrary file contents to the checks that tell
// whether a source line still lies in its function: they read files from
// disk that perflab does not control.
func FuzzSourceMatches(f *testing.F) {
	f.Add([]byte(handlersGo), "main.logRequest", int64(8), "go")
	f.Add([]byte("class A:\n    def f(self):\n        return 1\n"), "A.f", int64(3), "py")
	f.Add([]byte("class M\n  def initialize\n    @t = {}\n  end\nend\n"), "block in M#initialize", int64(4), "rb")
	f.Add([]byte("\x00binary"), "f", int64(1), "go")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte, fn string, line int64, ext string) {
		if strings.ContainsAny(ext, "/\x00") || len(ext) > 8 {
			return
		}
		path := filepath.Join(dir, "src."+ext)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Skip(err)
		}
		sf := (&Sources{}).File(path)
		sf.Matches(fn, line)
		sf.DeclaredAt(fn, line)
		if sf.Err == nil && line > 0 && line <= int64(len(sf.Lines)) {
			defLine(sf, fn, line)
		}
	})
}
