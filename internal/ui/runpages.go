package ui

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"

	"perflab/internal/analysis"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// report renders the run's report from its run.json (any run, an
// interrupted one without report.html too), with breadcrumbs, the CPU
// flame graph drawn from its profile, and each finding linked to its frame
// on the run's flame graph page and to its culprit source lines (those
// run.json keeps, or pprof's source view when --source-dir gives it the
// files).
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	e, ok := s.run(w, r)
	if !ok {
		return
	}
	opt := report.HTMLOptions{FilesHref: "files/"}
	var crumbs []report.Crumb
	for _, c := range runCrumbs(rootOf(r), e.Run.ID, e.Run.Name) {
		crumbs = append(crumbs, report.Crumb{Label: c.Label, Href: c.Href})
	}
	opt.Crumbs = crumbs
	if cpu, err := profilePath(e, runfmt.ProfileCPU); err == nil {
		if page, err := s.flames.page(cpu, cpuFlameOptions(e.Run, e.Run.ID+": CPU")); err == nil {
			opt.Flame = page
			opt.FlameURL = func(fn string) string { return "flame#focus=" + url.PathEscape(fn) }
			if len(s.opt.SourceDirs) > 0 {
				// pprof's source view shows files of --source-dir only:
				// without one it has line numbers and no text.
				opt.SourceURL = func(fn string) string {
					return "pprof/cpu/source?f=" + url.QueryEscape("^"+regexp.QuoteMeta(fn)+"$")
				}
			}
		}
	}
	if wall, err := profilePath(e, runfmt.ProfileWall); err == nil {
		if page, err := s.flames.page(wall, offCPUOptions(e.Run)); err == nil {
			opt.OffCPUFlame = page
			opt.OffCPUFlameURL = func(fn string) string { return "flame?profile=wall#focus=" + url.PathEscape(fn) }
		}
	}
	var b bytes.Buffer
	if err := report.WriteHTMLWith(&b, e.Run, opt); err != nil {
		http.Error(w, fmt.Sprintf("rendering run %s: %v", e.Run.ID, err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// flame serves perflab's flame graph of one of the run's profiles
// (?profile=cpu by default, or allocs...), per request, with breadcrumbs;
// #focus=FUNCTION zooms to a function's frame.
func (s *Server) flame(w http.ResponseWriter, r *http.Request) {
	e, ok := s.run(w, r)
	if !ok {
		return
	}
	typ := runfmt.ProfileType(r.URL.Query().Get("profile")) // looked up in the run's profiles
	if typ == "" {
		typ = runfmt.ProfileCPU
	}
	file, err := profilePath(e, typ)
	if errors.Is(err, errOutside) {
		http.Error(w, fmt.Sprintf("profile %q: %v", typ, err), http.StatusForbidden)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("profile %q: %v", typ, err), http.StatusNotFound)
		return
	}
	what := string(typ)
	opt := analysis.FlameOptions{Title: fmt.Sprintf("%s: %s", e.Run.ID, typ), Requests: requests(e.Run), UserCode: analysis.RunUserCode(e.Run.Profiling)}
	switch typ {
	case runfmt.ProfileCPU:
		opt = cpuFlameOptions(e.Run, opt.Title)
	case runfmt.ProfileAllocs:
		opt.SampleIndex = "alloc_space"
	case runfmt.ProfileWall:
		opt = offCPUOptions(e.Run)
		what = "off-CPU"
	}
	page, err := s.flames.page(file, opt)
	if err != nil {
		http.Error(w, fmt.Sprintf("flame graph of the %s profile: %v", what, err), http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(withCrumbs(page, runCrumbs(rootOf(r), e.Run.ID, e.Run.Name, what+" flame graph")))
}

// profilePath is the path of the run's profile of a type, resolved and
// checked to stay inside the run directory (errOutside for a link out of
// it).
func profilePath(e store.Entry, typ runfmt.ProfileType) (string, error) {
	for _, p := range e.Run.Profiles {
		if p.Type == typ && filepath.IsLocal(p.File) {
			return within(e.Dir, filepath.Join(e.Dir, p.File))
		}
	}
	return "", fmt.Errorf("run %s has none (see its run.json)", e.Run.ID)
}

// offCPUOptions draws a run's wall-time profile as its time off a CPU, per
// request of the slice it covers.
func offCPUOptions(r *runfmt.Run) analysis.FlameOptions {
	opt := analysis.FlameOptions{Title: r.ID + ": off-CPU time", SampleIndex: runfmt.OffCPUSample, Requests: requests(r), UserCode: analysis.RunUserCode(r.Profiling),
		Leaves: analysis.OffCPULeaves()}
	if t := r.Time; t != nil && t.Requests > 0 {
		opt.Requests = t.Requests
		opt.Title += " (" + string(t.Source) + ")"
	}
	return opt
}

// cpuFlameOptions draws a run's CPU profile as its verdict, top, list and
// report.html print it: scaled to the CPU measured, per request answered.
func cpuFlameOptions(r *runfmt.Run, title string) analysis.FlameOptions {
	return analysis.FlameOptions{Title: title, Requests: r.PerRequestCount(), Scale: r.CPUScale(), UserCode: analysis.RunUserCode(r.Profiling)}
}

func requests(r *runfmt.Run) int64 {
	if r.Load == nil {
		return 0
	}
	return r.Load.Requests
}
