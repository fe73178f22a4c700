package ui

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"perflab/internal/compare"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
	"perflab/internal/units"
)

//go:embed index.html
var pages embed.FS

var index = template.Must(template.New("index.html").Funcs(template.FuncMap{
	"ms":    func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"short": func(s string, n int) string { return units.Shorten(s, n) },
}).ParseFS(pages, "index.html"))

// Server is perflab's local web UI over one run directory.
type Server struct {
	store   store.Store
	opt     Options
	runs    *runList
	pprof   pprofViews
	flames  *flameCache
	mux     *http.ServeMux
	handler http.Handler
}

// New returns the UI of the runs kept in st.
func New(st store.Store, opt Options) *Server {
	s := &Server{store: st, opt: opt, runs: &runList{root: st.Root}, mux: http.NewServeMux(),
		pprof: pprofViews{sourceDirs: opt.SourceDirs}, flames: newFlameCache(flameCacheBytes)}
	s.handler = s.guard(s.mux)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /runs/{id}/{$}", s.report)
	s.mux.HandleFunc("GET /runs/{id}/flame", s.flame)
	s.mux.HandleFunc("GET /runs/{id}/files/{path...}", s.file)
	// Any method: pprof's views save and delete their settings with POSTs.
	s.mux.HandleFunc("/runs/{id}/pprof/{profile}/{view...}", s.pprofView)
	s.mux.HandleFunc("GET /compare", s.compare)
	// No icon: answered, so browsers do not log a failed request.
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return s
}

// Runs counts the stored runs, reading what the index shows of each (kept
// for the index while their run.json files are unchanged).
func (s *Server) Runs() (int, error) {
	sums, err := s.runs.list()
	return len(sums), err
}

// ServeHTTP serves the UI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.handler.ServeHTTP(w, r)
}

// run finds the run with the ID in the request's path.
func (s *Server) run(w http.ResponseWriter, r *http.Request) (store.Entry, bool) {
	id := r.PathValue("id")
	if !runID(id) {
		http.Error(w, fmt.Sprintf("run %q: not a run ID", id), http.StatusBadRequest)
		return store.Entry{}, false
	}
	dir := filepath.Join(s.store.Root, id)
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		// A link (to a directory elsewhere) is not a run of --dir.
		http.Error(w, fmt.Sprintf("run %s: not in %s", id, s.store.Root), http.StatusNotFound)
		return store.Entry{}, false
	}
	if _, err := within(dir, filepath.Join(dir, runfmt.FileName)); errors.Is(err, errOutside) {
		http.Error(w, fmt.Sprintf("run %s: its %s is a link out of the run directory", id, runfmt.FileName), http.StatusForbidden)
		return store.Entry{}, false
	}
	run, err := runfmt.ReadFile(dir)
	if errors.Is(err, os.ErrNotExist) {
		http.Error(w, fmt.Sprintf("run %s: not in %s", id, s.store.Root), http.StatusNotFound)
		return store.Entry{}, false
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("run %s: %v", id, err), http.StatusInternalServerError)
		return store.Entry{}, false
	}
	return store.Entry{Dir: dir, Run: run}, true
}

// file serves a file of the run directory (run.json, target.log, profiles).
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	e, ok := s.run(w, r)
	if !ok {
		return
	}
	rel := r.PathValue("path")
	if !filepath.IsLocal(rel) {
		http.Error(w, fmt.Sprintf("file %q: not inside the run directory", rel), http.StatusBadRequest)
		return
	}
	path, err := within(e.Dir, filepath.Join(e.Dir, rel))
	if errors.Is(err, errOutside) {
		http.Error(w, fmt.Sprintf("file %s: a link out of the run directory", rel), http.StatusForbidden)
		return
	}
	if st, serr := os.Stat(path); err != nil || serr != nil || !st.Mode().IsRegular() {
		http.Error(w, fmt.Sprintf("file %s: not in run %s", rel, e.Run.ID), http.StatusNotFound)
		return
	}
	if strings.HasSuffix(rel, ".log") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	// A run directory may come from someone else: a page in it (its
	// report.html, or any HTML file) runs in an origin of its own, not the
	// UI's, so its scripts cannot act on the UI.
	w.Header().Set("Content-Security-Policy", "sandbox allow-scripts")
	http.ServeFile(w, r, path)
}

// pprofView serves pprof's web interface for one of the run's profiles,
// named by its file's base name without .pb.gz ("cpu", "allocs").
func (s *Server) pprofView(w http.ResponseWriter, r *http.Request) {
	e, ok := s.run(w, r)
	if !ok {
		return
	}
	name := r.PathValue("profile")
	var file string
	for _, p := range e.Run.Profiles {
		if strings.TrimSuffix(filepath.Base(p.File), ".pb.gz") == name && strings.HasSuffix(p.File, ".pb.gz") && filepath.IsLocal(p.File) {
			file = filepath.Join(e.Dir, p.File)
		}
	}
	if file == "" {
		http.Error(w, fmt.Sprintf("profile %q: run %s has none (see its run.json)", name, e.Run.ID), http.StatusNotFound)
		return
	}
	file, err := within(e.Dir, file)
	if err != nil {
		http.Error(w, fmt.Sprintf("profile %q: %v", name, err), http.StatusForbidden)
		return
	}
	h, err := s.pprof.handler(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	prefix := "/runs/" + r.PathValue("id") + "/pprof/" + name
	cw := &crumbWriter{ResponseWriter: w, crumbs: runCrumbs(rootOf(r), e.Run.ID, e.Run.Name, name+" profile (pprof)")}
	http.StripPrefix(prefix, h).ServeHTTP(cw, r)
	cw.finish()
}

// compare compares two runs or groups (?base=REF&new=REF[&force=1], REF as
// for perflab compare, inside the UI's directory) and serves the
// comparison page with its differential flame graph.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	refs := [2]string{strings.TrimSpace(q.Get("base")), strings.TrimSpace(q.Get("new"))}
	if picks := q["pick"]; refs[0] == "" && refs[1] == "" && len(picks) > 0 {
		// Ticked in the index, which lists the newest first: the lower
		// (older) one is the base.
		if len(picks) != 2 {
			http.Error(w, fmt.Sprintf("compare: tick two groups or runs (%d ticked)", len(picks)), http.StatusBadRequest)
			return
		}
		refs = [2]string{picks[1], picks[0]}
	}
	groups := [2][]store.Entry{}
	var labels [2]string
	for i, side := range []string{"base", "new"} {
		if refs[i] == "" {
			http.Error(w, fmt.Sprintf("compare: %s is empty: give a run ID, name, glob or comma-separated list", side), http.StatusBadRequest)
			return
		}
		es, err := s.resolve(refs[i])
		if err != nil {
			http.Error(w, fmt.Sprintf("compare: %s=%q: %v", side, refs[i], err), http.StatusBadRequest)
			return
		}
		groups[i], labels[i] = es, groupLabel(es, refs[i])
	}
	if compare.HasBench(groups[0], groups[1]) {
		s.compareBench(w, groups, labels)
		return
	}
	res, err := compare.Compare(groups[0], groups[1], compare.Options{
		Force: q.Get("force") == "1", BaseLabel: labels[0], NewLabel: labels[1]})
	if errors.Is(err, compare.ErrIncomparable) {
		http.Error(w, fmt.Sprintf("compare: %v (add &force=1 to compare anyway)", err), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	flame, err := res.DiffFlame(report.CompareFlameTitle(res.Comparison))
	if err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	var b bytes.Buffer
	if err := report.WriteCompareHTML(&b, res.Comparison, flame); err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	crumbs := []crumb{{Label: "perflab runs", Href: "./"}, {Label: fmt.Sprintf("compare %s (base) with %s (new)", labels[0], labels[1])}}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(withCrumbs(b.Bytes(), crumbs))
}

// compareBench serves the comparison of two benchmark runs (perflab
// bench), computed as perflab compare computes it.
func (s *Server) compareBench(w http.ResponseWriter, groups [2][]store.Entry, labels [2]string) {
	c, err := compare.BenchGroups(groups[0], groups[1], nil)
	if err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusBadRequest)
		return
	}
	var b bytes.Buffer
	if err := report.WriteBenchCompareHTML(&b, c); err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	crumbs := []crumb{{Label: "perflab runs", Href: "./"}, {Label: fmt.Sprintf("compare %s (base) with %s (new)", labels[0], labels[1])}}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(withCrumbs(b.Bytes(), crumbs))
}

// groupLabel names a side of a comparison: its runs' name when they share
// one, else the reference as given.
func groupLabel(es []store.Entry, ref string) string {
	name := ""
	for i, e := range es {
		if e.Run == nil || (i > 0 && e.Run.Name != name) {
			return units.Shorten(ref, 24)
		}
		name = e.Run.Name
	}
	return units.Shorten(name, 24)
}

// resolve finds the runs of a comma-separated list of references inside
// the UI's directory; paths are refused, so a page can only reach the runs
// the UI was started on.
func (s *Server) resolve(refs string) ([]store.Entry, error) {
	for ref := range strings.SplitSeq(refs, ",") {
		if ref = strings.TrimSpace(ref); ref != "" && !validRef(ref) {
			return nil, fmt.Errorf("%q: want a run ID, name or glob, not a path", ref)
		}
	}
	return s.store.ResolveGroup(refs)
}

var refChars = regexp.MustCompile(`^[A-Za-z0-9._*?\[\]-]+$`)

// validRef accepts run IDs, names and globs: no separators, and neither
// "." nor ".." (an ID may hold "..": older perflabs wrote such names).
func validRef(ref string) bool {
	return refChars.MatchString(ref) && ref != "." && ref != ".."
}

// runID accepts a run directory's name as the index links to it: one
// element of a path (whatever an older perflab let a name hold), neither
// "." nor "..", no separator.
func runID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\\\x00")
}
