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
)

//go:embed index.html
var pages embed.FS

var index = template.Must(template.New("index.html").Funcs(template.FuncMap{
	"ms":    func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"short": func(s string, n int) string { return shorten(s, n) },
}).ParseFS(pages, "index.html"))

// Server is perflab's local web UI over one run directory.
type Server struct {
	store   store.Store
	opt     Options
	pprof   pprofViews
	mux     *http.ServeMux
	handler http.Handler
}

// New returns the UI of the runs kept in st.
func New(st store.Store, opt Options) *Server {
	s := &Server{store: st, opt: opt, mux: http.NewServeMux(), pprof: pprofViews{sourceDirs: opt.SourceDirs}}
	s.handler = s.guard(s.mux)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /runs/{id}/{$}", s.report)
	s.mux.HandleFunc("GET /runs/{id}/files/{path...}", s.file)
	// Any method: pprof's views save and delete their settings with POSTs.
	s.mux.HandleFunc("/runs/{id}/pprof/{profile}/{view...}", s.pprofView)
	s.mux.HandleFunc("GET /compare", s.compare)
	return s
}

// ServeHTTP serves the UI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.handler.ServeHTTP(w, r)
}

// runRow is one line of the index.
type runRow struct {
	ID, Name, Started, Status, Reason, Err string
	RPS, P99, CPUMs                        float64
	HasLoad, HasCPU                        bool
	Finding                                string
	Profiles                               []profileLink
}

// profileLink opens one profile in pprof's views.
type profileLink struct{ Name, Type, File, Href string }

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	entries, err := s.store.List()
	if err != nil {
		http.Error(w, fmt.Sprintf("listing runs in %s: %v", s.store.Root, err), http.StatusInternalServerError)
		return
	}
	var rows []runRow
	for _, e := range entries {
		rows = append(rows, newRunRow(e))
	}
	var b bytes.Buffer
	err = index.Execute(&b, map[string]any{"Root": s.store.Root, "Runs": rows,
		"Base": r.URL.Query().Get("base"), "New": r.URL.Query().Get("new")})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func newRunRow(e store.Entry) runRow {
	row := runRow{ID: filepath.Base(e.Dir)}
	if e.Err != nil {
		row.Err = e.Err.Error()
		return row
	}
	run := e.Run
	row.Name, row.Status, row.Reason = run.Name, run.Status, run.PartialReason
	row.Started = run.Started.Format("2006-01-02 15:04:05")
	if run.Load != nil {
		row.HasLoad, row.RPS, row.P99 = true, run.Load.RPS, run.Load.Latency.P99
	}
	if run.Target != nil && run.Target.CPUMsPerRequest > 0 {
		row.HasCPU, row.CPUMs = true, run.Target.CPUMsPerRequest
	}
	if len(run.Findings) > 0 {
		row.Finding = run.Findings[0].Title
	}
	for _, p := range run.Profiles {
		if name, ok := strings.CutSuffix(filepath.Base(p.File), ".pb.gz"); ok {
			row.Profiles = append(row.Profiles, profileLink{Name: name, Type: p.Type, File: p.File,
				Href: "runs/" + row.ID + "/pprof/" + name + "/flamegraph"})
		}
	}
	return row
}

// run finds the run with the ID in the request's path.
func (s *Server) run(w http.ResponseWriter, r *http.Request) (store.Entry, bool) {
	id := r.PathValue("id")
	if !validRef(id) || strings.ContainsAny(id, "*?[,") {
		http.Error(w, fmt.Sprintf("run %q: not a run ID", id), http.StatusBadRequest)
		return store.Entry{}, false
	}
	dir := filepath.Join(s.store.Root, id)
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		// A link (to a directory elsewhere) is not a run of --dir.
		http.Error(w, fmt.Sprintf("run %s: not in %s", id, s.store.Root), http.StatusNotFound)
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

// report serves the run's report.html, or renders one without a flame
// graph for a run that has none (an interrupted one).
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	e, ok := s.run(w, r)
	if !ok {
		return
	}
	if b, err := readWithin(e.Dir, filepath.Join(e.Dir, "report.html")); err == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
		return
	}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, e.Run, nil); err != nil {
		http.Error(w, fmt.Sprintf("rendering run %s: %v", e.Run.ID, err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
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
		if strings.TrimSuffix(filepath.Base(p.File), ".pb.gz") == name && strings.HasSuffix(p.File, ".pb.gz") {
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
	http.StripPrefix(prefix, h).ServeHTTP(w, r)
}

// compare compares two runs or groups (?base=REF&new=REF[&force=1], REF as
// for perflab compare, inside the UI's directory) and serves the
// comparison page with its differential flame graph.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	groups := [2][]store.Entry{}
	for i, side := range []string{"base", "new"} {
		ref := strings.TrimSpace(q.Get(side))
		if ref == "" {
			http.Error(w, fmt.Sprintf("compare: %s is empty: give a run ID, name, glob or comma-separated list", side), http.StatusBadRequest)
			return
		}
		es, err := s.resolve(ref)
		if err != nil {
			http.Error(w, fmt.Sprintf("compare: %s=%q: %v", side, ref, err), http.StatusBadRequest)
			return
		}
		groups[i] = es
	}
	res, err := compare.Compare(groups[0], groups[1], compare.Options{
		Force: q.Get("force") == "1", BaseLabel: shorten(q.Get("base"), 24), NewLabel: shorten(q.Get("new"), 24)})
	if errors.Is(err, compare.ErrIncomparable) {
		http.Error(w, fmt.Sprintf("compare: %v (add &force=1 to compare anyway)", err), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	var flame *report.DiffFlame
	if p := res.CPU; p != nil {
		flame = &report.DiffFlame{Base: p.Base, New: p.New, BaseRequests: p.BaseRequests, NewRequests: p.NewRequests}
	}
	var b bytes.Buffer
	if err := report.WriteCompareHTML(&b, res.Comparison, flame); err != nil {
		http.Error(w, fmt.Sprintf("compare: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
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

// validRef accepts run IDs, names and globs: no separators, no "..".
func validRef(ref string) bool {
	return refChars.MatchString(ref) && ref != "." && !strings.Contains(ref, "..")
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
