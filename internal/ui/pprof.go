package ui

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/google/pprof/driver"
)

// pprofViews embeds pprof's own web interface (graph, flame graph, top,
// source, peek) for one profile file: the same views `go tool pprof -http`
// serves, mounted under perflab's server instead of a port of their own.
// Written here rather than run as a subprocess so that the views live as long
// as the UI and need no free port or pprof binary.
type pprofViews struct {
	mu       sync.Mutex
	handlers map[string]map[string]http.Handler // by profile path, then pprof's route
}

// handler returns pprof's web interface for the profile at path, loading
// it on first use.
func (v *pprofViews) handler(path string) (http.Handler, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if hs, ok := v.handlers[path]; ok {
		return mux(hs), nil
	}
	var hs map[string]http.Handler
	err := driver.PProf(&driver.Options{
		Flagset: &pprofFlags{args: []string{path}, values: map[string]string{
			"http":       "127.0.0.1:0", // web mode; the server below never listens
			"no_browser": "true",
			"symbolize":  "none", // perflab's profiles are symbolised when captured
		}},
		UI:     quietUI{},
		Writer: discardWriter{},
		HTTPServer: func(args *driver.HTTPServerArgs) error {
			hs = args.Handlers
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("opening %s in pprof: %w", path, err)
	}
	if hs == nil {
		return nil, fmt.Errorf("opening %s in pprof: it served no web interface", path)
	}
	if v.handlers == nil {
		v.handlers = map[string]map[string]http.Handler{}
	}
	v.handlers[path] = hs
	return mux(hs), nil
}

// mux routes pprof's paths ("/", "/top", "/flamegraph", ...).
func mux(hs map[string]http.Handler) http.Handler {
	m := http.NewServeMux()
	for p, h := range hs {
		if p == "/" {
			m.Handle("/{$}", h)
			continue
		}
		m.Handle(p, h)
	}
	return m
}

// pprofFlags answers pprof's flag definitions with their defaults, except
// the values perflab sets, and gives the profile as the only argument.
type pprofFlags struct {
	args   []string
	values map[string]string
	extra  string
}

func (f *pprofFlags) Bool(name string, def bool, _ string) *bool {
	if s, ok := f.values[name]; ok {
		def, _ = strconv.ParseBool(s)
	}
	return &def
}

func (f *pprofFlags) Int(name string, def int, _ string) *int {
	if s, ok := f.values[name]; ok {
		def, _ = strconv.Atoi(s)
	}
	return &def
}

func (f *pprofFlags) Float64(name string, def float64, _ string) *float64 {
	if s, ok := f.values[name]; ok {
		def, _ = strconv.ParseFloat(s, 64)
	}
	return &def
}

func (f *pprofFlags) String(name, def, _ string) *string {
	if s, ok := f.values[name]; ok {
		def = s
	}
	return &def
}

func (f *pprofFlags) StringList(name, def, _ string) *[]*string {
	if s, ok := f.values[name]; ok {
		def = s
	}
	if def == "" {
		return &[]*string{}
	}
	return &[]*string{&def}
}

func (f *pprofFlags) ExtraUsage() string          { return f.extra }
func (f *pprofFlags) AddExtraUsage(eu string)     { f.extra += eu }
func (f *pprofFlags) Parse(usage func()) []string { return f.args }

// quietUI keeps pprof from printing to perflab's terminal.
type quietUI struct{}

func (quietUI) ReadLine(string) (string, error)     { return "", io.EOF }
func (quietUI) Print(...interface{})                {}
func (quietUI) PrintErr(...interface{})             {}
func (quietUI) IsTerminal() bool                    { return false }
func (quietUI) WantBrowser() bool                   { return false }
func (quietUI) SetAutoComplete(func(string) string) {}

// discardWriter refuses to write files: the web views never need to.
type discardWriter struct{}

func (discardWriter) Open(name string) (io.WriteCloser, error) {
	return nil, fmt.Errorf("perflab ui writes no files (pprof asked for %s)", name)
}
