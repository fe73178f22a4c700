package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// middleware is a gzip middleware's source: a writer per response (line
// 14), written through on line 8; the pooled writers' New on line 21 is
// not on the request's path.
const middleware = `package main

import (
	zip "compress/gzip"
	"net/http"
)

func (g *gzipWriter) Write(b []byte) (int, error) { return g.gz.Write(b) }

func gzipResponses(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		// one writer per response
		gz := zip.NewWriter(w)
		defer gz.Close()
		next.ServeHTTP(&gzipWriter{ResponseWriter: w, gz: gz}, r)
	})
}

func pooled() any {
	return zip.NewWriter(nil)
}
`

// stackProfile is a CPU profile of one sample per stack, each frame
// "function file:line", leaf first.
func stackProfile(stacks ...[]string) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}, Period: 1}
	fns := map[string]*profile.Function{}
	for _, st := range stacks {
		s := &profile.Sample{Value: []int64{1e6}}
		for _, fr := range st {
			name, at, _ := strings.Cut(fr, " ")
			file, line, _ := strings.Cut(at, ":")
			fn := fns[name]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
				fns[name] = fn
				p.Function = append(p.Function, fn)
			}
			n := int64(0)
			for _, c := range line {
				n = n*10 + int64(c-'0')
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: n}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// TestMakerLineFromSource: a constructor a gzip.Writer builds at its
// first Write is charged to the line that made the writer per response,
// found in the source of the middleware on the stack (the profile shows
// no call of gzip.NewWriter), through the file's own name for the
// package.
func TestMakerLineFromSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(middleware), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu := stackProfile([]string{
		"compress/flate.NewWriter /go/src/compress/flate/deflate.go:666",
		"compress/gzip.(*Writer).Write /go/src/compress/gzip/gzip.go:191",
		"main.(*gzipWriter).Write " + src + ":8",
		"main.api " + src + ":30",
		"main.gzipResponses.func1 " + src + ":16",
		"net/http.HandlerFunc.ServeHTTP /go/src/net/http/server.go:2294",
	})
	fs := []runfmt.Finding{{Kind: runfmt.FindingConstructor, Figures: runfmt.Figures{runfmt.FigCPUPerRequest: 170},
		Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{
			{Role: runfmt.RoleCulprit, Function: "main.(*gzipWriter).Write", File: src},
			{Role: runfmt.RoleEntry, Function: "compress/flate.NewWriter", File: "/go/src/compress/flate/deflate.go"},
			{Role: runfmt.RoleLibrary, Function: "compress/gzip.(*Writer).Write", File: "/go/src/compress/gzip/gzip.go"}}}}}
	AttachLines(cpu, fs, nil, &analysis.Sources{}, analysis.UserCode{})
	AttachMakers(cpu, nil, fs, &analysis.Sources{}, analysis.UserCode{})
	ls := fs[0].Lines
	if len(ls) < 2 || ls[0].Line != 14 || ls[0].Text != "gz := zip.NewWriter(w)" || ls[1].Line != 8 {
		t.Fatalf("lines %+v; want line 14 (the writer made per response), then line 8 (its Write)", ls)
	}
	site := withRole(&fs[0], runfmt.RoleSite)
	if len(site) != 1 || site[0].Function != "main.gzipResponses.func1" || site[0].Callee != "compress/gzip.NewWriter" {
		t.Errorf("site %+v; want compress/gzip.NewWriter called in main.gzipResponses.func1", site)
	}
	if w := prose.Wording(&fs[0]); !strings.Contains(w.Detail.Text(), "made per request by compress/gzip.NewWriter") {
		t.Errorf("detail %q; want the maker named", w.Detail.Text())
	}
}

// TestMakerLineFromProfile: when a profile shows the user's call of the
// method's package's constructor on the constructor's path, that line is
// the maker's, without reading a source.
func TestMakerLineFromProfile(t *testing.T) {
	allocs := stackProfile(
		[]string{"runtime.mallocgc /go/src/runtime/malloc.go:1", "compress/gzip.NewWriterLevel /go/src/compress/gzip/gzip.go:70",
			"compress/gzip.NewWriter /go/src/compress/gzip/gzip.go:50", "main.mw.func1 /srv/app/mw.go:41"},
		[]string{"runtime.mallocgc /go/src/runtime/malloc.go:1", "compress/gzip.NewWriter /go/src/compress/gzip/gzip.go:50", "main.other /srv/app/other.go:9"},
	)
	allocs.SampleType = []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}
	cpu := stackProfile([]string{
		"compress/flate.NewWriter /go/src/compress/flate/deflate.go:666",
		"compress/gzip.(*Writer).Write /go/src/compress/gzip/gzip.go:191",
		"main.(*w).Write /srv/app/mw.go:12",
		"main.mw.func1 /srv/app/mw.go:44",
	})
	fs := []runfmt.Finding{{Kind: runfmt.FindingConstructor, Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{
		{Role: runfmt.RoleCulprit, Function: "main.(*w).Write", File: "/srv/app/mw.go"},
		{Role: runfmt.RoleEntry, Function: "compress/flate.NewWriter"},
		{Role: runfmt.RoleLibrary, Function: "compress/gzip.(*Writer).Write", File: "/go/src/compress/gzip/gzip.go"}}}}}
	AttachMakers(cpu, allocs, fs, &analysis.Sources{}, analysis.UserCode{})
	if ls := fs[0].Lines; len(ls) != 1 || ls[0].File != "/srv/app/mw.go" || ls[0].Line != 41 {
		t.Errorf("lines %+v; want mw.go:41, where main.mw.func1 (on the constructor's path) calls compress/gzip.NewWriter", ls)
	}
}
