package ui

import (
	"container/list"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
)

// pprofViews embeds pprof's own web interface (graph, flame graph, top,
// source, peek) for one profile file: the same views `go tool pprof -http`
// serves, mounted under perflab's server instead of a port of their own.
// Written here rather than run as a subprocess so that the views live as long
// as the UI and need no free port or pprof binary.
//
// A profile is parsed once (the first requests for it wait for that parse
// only: other profiles are served meanwhile) and kept while its file is
// unchanged, the maxPprofViews most recently viewed at most: a parsed
// profile holds its whole graph in memory.
type pprofViews struct {
	mu    sync.Mutex
	views map[pprofKey]*list.Element // of *pprofView
	order *list.List                 // most recently viewed first
	// sourceDirs are the only directories the source view reads (see
	// sourceFetcher).
	sourceDirs []string
	// open parses a profile into pprof's handlers (openPprof; tests
	// replace it to watch the parses).
	open func(path string, sourceDirs []string) (map[string]http.Handler, error)
}

// maxPprofViews bounds the parsed profiles the UI keeps.
const maxPprofViews = 16

// pprofKey is a profile file as it was when parsed: written again, it is
// parsed again.
type pprofKey struct {
	path     string
	size     int64
	modNanos int64
}

// pprofView is one profile's handlers, parsed once.
type pprofView struct {
	key  pprofKey
	once sync.Once
	hs   map[string]http.Handler
	err  error
}

// handler returns pprof's web interface for the profile at path, parsing
// it on first use.
func (v *pprofViews) handler(path string) (http.Handler, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s in pprof: %w", path, err)
	}
	view := v.view(pprofKey{path: path, size: st.Size(), modNanos: st.ModTime().UnixNano()})
	view.once.Do(func() {
		open := v.open
		if open == nil {
			open = openPprof
		}
		view.hs, view.err = open(path, v.sourceDirs)
	})
	if view.err != nil {
		v.forget(view)
		return nil, view.err
	}
	return mux(view.hs), nil
}

// view returns the entry of k, made and put first if new, and drops the
// least recently viewed beyond maxPprofViews.
func (v *pprofViews) view(k pprofKey) *pprofView {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.views == nil {
		v.views, v.order = map[pprofKey]*list.Element{}, list.New()
	}
	if e, ok := v.views[k]; ok {
		v.order.MoveToFront(e)
		return e.Value.(*pprofView)
	}
	view := &pprofView{key: k}
	v.views[k] = v.order.PushFront(view)
	for v.order.Len() > maxPprofViews {
		last := v.order.Back()
		v.order.Remove(last)
		delete(v.views, last.Value.(*pprofView).key)
	}
	return view
}

// forget drops a view whose parse failed, so the next request tries again.
func (v *pprofViews) forget(view *pprofView) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.views[view.key]; ok && e.Value == view {
		v.order.Remove(e)
		delete(v.views, view.key)
	}
}

// openPprof parses the profile at path into pprof's web handlers.
func openPprof(path string, sourceDirs []string) (map[string]http.Handler, error) {
	var hs map[string]http.Handler
	err := driver.PProf(&driver.Options{
		Flagset: &pprofFlags{args: []string{path}, values: map[string]string{
			"http":       "127.0.0.1:0", // web mode; the server below never listens
			"no_browser": "true",
			"symbolize":  "none", // perflab's profiles are symbolised when captured
		}},
		Fetch:  sourceFetcher{dirs: sourceDirs},
		Obj:    noObjects{},
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
	return hs, nil
}

// mux routes pprof's paths ("/", "/top", "/flamegraph", ...). The two
// routes that change state, saving and deleting pprof's settings in the
// user's ~/.config/pprof, take only the methods pprof's own pages send
// (POST, DELETE), which Go's cross-origin protection (see guard) refuses
// from other sites; a GET of them (a link or an image on a hostile page)
// is refused here.
func mux(hs map[string]http.Handler) http.Handler {
	m := http.NewServeMux()
	methods := map[string]string{"/saveconfig": http.MethodPost, "/deleteconfig": http.MethodDelete}
	for p, h := range hs {
		switch {
		case p == "/":
			m.Handle("/{$}", h)
		case methods[p] != "":
			m.Handle(methods[p]+" "+p, h)
		default:
			m.Handle(p, h)
		}
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

// sourceFetcher reads the profile pprof is given and rewrites its source
// file names: pprof's source view opens any absolute path a profile names
// and searches relative ones up every parent of the current directory, so
// a profile from someone else could show any file of the user's. A file
// name is kept, made absolute, only when it resolves (links included) to a
// regular file inside one of dirs; otherwise it is cleared and the view
// shows no source for it.
type sourceFetcher struct{ dirs []string }

func (f sourceFetcher) Fetch(src string, _, _ time.Duration) (*profile.Profile, string, error) {
	p, err := stacks.ReadProfileFile(src)
	if err != nil {
		return nil, "", err
	}
	for _, fn := range p.Function {
		fn.Filename = allowedSource(fn.Filename, f.dirs)
	}
	return p, src, nil
}

// allowedSource is name resolved inside one of dirs, or "".
func allowedSource(name string, dirs []string) string {
	if name == "" {
		return ""
	}
	for _, dir := range dirs {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if resolved, err := within(dir, path); err == nil {
			if st, err := os.Stat(resolved); err == nil && st.Mode().IsRegular() {
				return resolved
			}
		}
	}
	return ""
}

// noObjects refuses pprof's object files: the disassembly views would run
// objdump on whatever binary path a profile's mappings name.
type noObjects struct{}

var errNoObjects = errors.New("perflab ui reads no binaries (disassembly is not served)")

func (noObjects) Open(string, uint64, uint64, uint64, string) (driver.ObjFile, error) {
	return nil, errNoObjects
}

func (noObjects) Disasm(string, uint64, uint64, bool) ([]driver.Inst, error) {
	return nil, errNoObjects
}
