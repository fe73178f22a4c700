package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// runRow is one run in the index.
type runRow struct {
	// Href is the run's page, "runs/ID/" with the ID escaped for a path.
	ID, Href, Name, Started, Status, Reason, Err string
	RPS, P99, CPUMs                              float64
	HasLoad, HasCPU, Noisy                       bool
	Finding                                      string
	HasFlame                                     bool
	Profiles                                     []profileLink
}

// profileLink opens one profile in pprof's views.
type profileLink struct{ Name, Type, File, Href string }

// runGroup is the runs of one name: the trend of a service across runs.
type runGroup struct {
	Name   string
	Runs   []runRow // newest first
	Latest runRow
	// Pick is the group as a compare reference: its runs' IDs.
	Pick string
	// Sparklines of CPU per request and p99 over the group's runs, oldest
	// first, and the same in words.
	CPUSpark, P99Spark template.HTML
	CPUTrend, P99Trend string
}

// indexFilter is what the index's filter form asks for.
type indexFilter struct {
	Q, Status string
}

func (f indexFilter) match(r runRow) bool {
	if f.Status != "" && r.Status != f.Status {
		return false
	}
	if q := strings.ToLower(f.Q); q != "" {
		return strings.Contains(strings.ToLower(r.Name), q) || strings.Contains(strings.ToLower(r.ID), q)
	}
	return true
}

// statuses are the filter's choices.
var statuses = []string{"complete", "degraded", "partial"}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	sums, err := s.runs.list()
	if err != nil {
		http.Error(w, fmt.Sprintf("listing runs in %s: %v", s.store.Root, err), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	f := indexFilter{Q: strings.TrimSpace(q.Get("q")), Status: q.Get("status")}
	var rows, unreadable []runRow
	for _, sum := range sums {
		row := newRunRow(sum)
		switch {
		case row.Err != "":
			unreadable = append(unreadable, row)
		case f.match(row):
			rows = append(rows, row)
		}
	}
	groups := groupRuns(rows)
	var b bytes.Buffer
	err = index.Execute(&b, map[string]any{
		"Root": s.store.Root, "Total": len(sums), "Shown": len(rows), "Groups": groups, "Unreadable": unreadable,
		"Filter": f, "Statuses": statuses, "Base": q.Get("base"), "New": q.Get("new"),
		"Crumbs": crumbsHTML([]crumb{{Label: "perflab runs"}}),
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func newRunRow(s *runSummary) runRow {
	row := runRow{ID: s.ID, Href: "runs/" + url.PathEscape(s.ID) + "/"}
	if s.Err != "" {
		row.Err = s.Err
		return row
	}
	row.Name, row.Status, row.Reason = s.Name, s.Status, s.PartialReason
	if row.Reason == "" && len(s.Degradations) > 0 {
		row.Reason = report.DegradedText(s.run())
	}
	row.Started = s.Started.Format("2006-01-02 15:04:05")
	if s.Load != nil {
		row.HasLoad, row.RPS, row.P99 = true, s.Load.RPS, s.p99()
	}
	if ms := s.cpuMs(); ms > 0 {
		row.HasCPU, row.CPUMs = true, ms
	}
	row.Noisy = s.Quality.Noisy()
	if f, ok := report.LeadFinding(s.run()); ok {
		row.Finding = report.FindingTitle(f)
	}
	for _, p := range s.Profiles {
		if p.Type == runfmt.ProfileCPU {
			row.HasFlame = true
		}
		if name, ok := strings.CutSuffix(filepath.Base(p.File), ".pb.gz"); ok {
			row.Profiles = append(row.Profiles, profileLink{Name: name, Type: string(p.Type), File: p.File,
				Href: row.Href + "pprof/" + url.PathEscape(name) + "/flamegraph"})
		}
	}
	return row
}

// groupRuns groups rows (newest first) by run name, groups ordered by
// their newest run.
func groupRuns(rows []runRow) []*runGroup {
	var groups []*runGroup
	byName := map[string]*runGroup{}
	for _, r := range rows {
		g := byName[r.Name]
		if g == nil {
			g = &runGroup{Name: r.Name, Latest: r}
			byName[r.Name] = g
			groups = append(groups, g)
		}
		g.Runs = append(g.Runs, r)
	}
	for _, g := range groups {
		ids := make([]string, len(g.Runs))
		for i, r := range g.Runs {
			ids[i] = r.ID
		}
		g.Pick = strings.Join(ids, ",")
		var cpu, p99 []float64
		var noisy []bool
		for i := min(len(g.Runs), maxSpark) - 1; i >= 0; i-- {
			r := g.Runs[i]
			cpu = append(cpu, valueOr(r.HasCPU, r.CPUMs))
			p99 = append(p99, valueOr(r.HasLoad, r.P99))
			noisy = append(noisy, r.Noisy)
		}
		g.CPUSpark, g.CPUTrend = sparkline(cpu, noisy, "CPU per request", "ms"), trend(cpu, noisy, "ms")
		g.P99Spark, g.P99Trend = sparkline(p99, noisy, "p99 latency", "ms"), trend(p99, noisy, "ms")
	}
	return groups
}

// maxSpark is how many runs (the newest) a sparkline shows.
const maxSpark = 40

func valueOr(ok bool, v float64) float64 {
	if !ok || v <= 0 {
		return math.NaN()
	}
	return v
}

// trend words a series' first and last values, and how many of its runs
// were measured on a noisy machine: "1.20 → 1.35 ms over 8 runs (2 noisy)".
func trend(vs []float64, noisy []bool, unit string) string {
	var first, last float64 = math.NaN(), math.NaN()
	n, nn := 0, 0
	for i, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		if n == 0 {
			first = v
		}
		last, n = v, n+1
		if noisy[i] {
			nn++
		}
	}
	var s string
	switch n {
	case 0:
		return "not measured"
	case 1:
		s = fmt.Sprintf("%s %s, one run", units.Sig(last), unit)
	default:
		s = fmt.Sprintf("%s → %s %s over %d runs", units.Sig(first), units.Sig(last), unit, n)
	}
	if nn > 0 {
		s += fmt.Sprintf(" (%d noisy)", nn)
	}
	return s
}

// sparkline draws vs (NaN: not measured) as a small inline SVG line with a
// dot on the newest value and a ring on each value measured on a noisy
// machine. Written by hand rather than with the report's
// plotting library: a sparkline is one polyline without axes, and the index
// draws two per service, where a plot's axes and text would weigh 50 times
// more.
func sparkline(vs []float64, noisy []bool, what, unit string) template.HTML {
	const w, h, pad = 110.0, 26.0, 3.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return template.HTML(`<span class="muted">–</span>`)
	}
	if hi-lo < 1e-12 {
		lo, hi = lo*0.9, hi*1.1+1e-12
	}
	step := 0.0
	if len(vs) > 1 {
		step = (w - 2*pad) / float64(len(vs)-1)
	}
	var pts []string
	var rings strings.Builder
	var lx, ly float64
	for i, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		lx, ly = pad+float64(i)*step, h-pad-(v-lo)/(hi-lo)*(h-2*pad)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", lx, ly))
		if noisy[i] {
			fmt.Fprintf(&rings, `<circle class="noisy" cx="%.1f" cy="%.1f" r="2.4" fill="none" stroke="#E69F00" stroke-width="1.2"/>`, lx, ly)
		}
	}
	title := template.HTMLEscapeString(fmt.Sprintf("%s over the last %d runs (oldest first): %s", what, len(vs), trend(vs, noisy, unit)))
	return template.HTML(fmt.Sprintf(`<svg class="spark" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s"><title>%s</title>`+
		`<polyline fill="none" stroke="#0072B2" stroke-width="1.5" points="%s"/>%s<circle cx="%.1f" cy="%.1f" r="2.2" fill="#D55E00"/></svg>`,
		w, h, w, h, title, title, strings.Join(pts, " "), rings.String(), lx, ly))
}
