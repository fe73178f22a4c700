package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"perflab/internal/funcname"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// A run's page is its verdict on one screen: the headline (the
// measurement, the answer, the first finding), the load and the service
// in a line each, where the time and the CPU go, the first findings with
// their line, advice and payoff, the other costly functions, and where to
// look further. Each figure is printed once. WriteRunFull prints
// everything the run holds.

// Limits of the page.
const (
	// pageWidth is where the page's prose wraps.
	pageWidth = 100
	// pageFindings and pageFunctions are how many findings and other
	// functions the page lists; pageLines is the most lines it has: a
	// page that would have more lists one finding fewer in full.
	pageFindings  = 3
	pageFunctions = 4
	pageLines     = 45
	// pageRowPct is the least share of the latency a time account row
	// has to be listed; smaller ones are summed as "other parts".
	pageRowPct = 1.0
)

// WriteRunPage writes r's verdict on one screen (see the top of this
// file); dir is its run directory.
func WriteRunPage(w io.Writer, r *runfmt.Run, dir string) error {
	if r.Batch != nil {
		return WriteBatchText(w, r, dir)
	}
	var b bytes.Buffer
	for n := pageFindings; n > 0; n-- {
		b.Reset()
		if err := writeRunPage(&b, r, dir, n); err != nil {
			return err
		}
		if bytes.Count(b.Bytes(), []byte("\n")) <= pageLines {
			break
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeRunPage writes the page with its first findings (up to findings of
// them) in full.
func writeRunPage(w io.Writer, r *runfmt.Run, dir string, findings int) error {
	p := &printer{w: w}
	for _, l := range NewHeadline(r).Lines {
		p.f("%s: %s\n", l.Label, wrap(l.Text, pageWidth, "  "))
	}
	if h := NewHeadline(r); len(h.SLO) > 0 {
		p.err = WriteSLO(w, h.SLO)
	}
	p.pageLoad(r.Load)
	p.pageService(r)
	p.pageTime(r)
	p.pageFindings(r, findings)
	if !p.pageEndpoints(r) {
		p.pageFunctions(r, findings)
	}
	p.pageMore(r, dir)
	return p.err
}

// pageEndpoints lists a load of several targets by endpoint: its
// requests, p99 and CPU per request, and the code that owns it (the
// other costly functions are then theirs). It says whether it did.
func (p *printer) pageEndpoints(r *runfmt.Run) bool {
	rows := endpointTable(r)
	if r.Load == nil || len(r.Load.Targets) < 2 || rows == nil {
		return false
	}
	p.f("\nPer endpoint (CPU per request from its handlers' samples; --full says how sure):\n")
	cells := [][]string{{"target", "requests", "p99", "CPU/request", "handler → owner"}}
	for _, row := range rows {
		owner := row.Handler
		if row.Owner != "" {
			owner += " → " + row.Owner
		}
		cells = append(cells, []string{dash(row.Target), dash(row.Requests), dash(row.P99), dash(row.CPU), owner})
	}
	p.table(cells, "  ", false, true, true, true, false)
	return true
}

// pageLoad is the load in one line.
func (p *printer) pageLoad(l *runfmt.LoadResult) {
	if l == nil {
		return
	}
	label := "Load"
	if l.Interrupted {
		label = "Load (interrupted: the requests that completed)"
	}
	p.f("%s: %d requests in %s, %s requests/s, %d errors; latency mean %s, p50 %s, p99 %s\n", label,
		l.Requests, units.FormatSeconds(l.DurationS), units.Sig(l.RPS), l.Errors,
		units.FormatMs(l.Latency.Mean), units.FormatMs(l.Latency.P50), units.FormatMs(l.Latency.P99))
}

// pageService is what the service used, in one line: its cores of its
// budget, its memory, its allocations per request, and the GC's share
// when the CPU account does not say it.
func (p *printer) pageService(r *runfmt.Run) {
	t := r.Target
	if t == nil || r.Load == nil && r.Status == runfmt.StatusPartial {
		return // no window measured: the status says why
	}
	var parts []string
	cores := units.FormatCores(t.CPUCoresMean)
	if t.CPULimitCores > 0 {
		cores += " of " + coresBudget(t.CPULimitCores)
		if t.ThrottledPct > 0 {
			cores += ", throttled in " + units.FormatPct(t.ThrottledPct) + " of periods"
		}
	}
	parts = append(parts, cores+" (p95 "+units.Sig(t.CPUCoresP95)+")")
	parts = append(parts, "peak RSS "+units.FormatBytes(float64(t.RSSMaxBytes)))
	if b := r.AllocBytesPerRequest; b > 0 {
		parts = append(parts, fmt.Sprintf("%s and %.0f objects allocated per request", units.FormatBytes(b), r.AllocObjectsPerRequest))
	}
	if g := r.GC; g != nil && !cpuAccountOwns(r, runfmt.OwnerGC) {
		parts = append(parts, "GC "+GCShareText(g))
	}
	if t.ExitCode != nil && *t.ExitCode != 0 && !t.StoppedByPerflab {
		parts = append(parts, fmt.Sprintf("exited with status %d", *t.ExitCode))
	}
	p.f("Service: %s\n", wrap(strings.Join(parts, "; "), pageWidth, "  "))
}

// cpuAccountOwns says r's CPU account has a row of owner o.
func cpuAccountOwns(r *runfmt.Run, o runfmt.CPUOwner) bool {
	if r.Ledger == nil || r.Ledger.CPU == nil {
		return false
	}
	return slices.ContainsFunc(r.Ledger.CPU.Owners, func(s runfmt.CPUShare) bool { return s.Owner == o })
}

// pageTime is where the time and the CPU go: the time account as a table
// of its notable parts (the rest summed, unexplained always), then the
// CPU account in a line.
func (p *printer) pageTime(r *runfmt.Run) {
	l := r.Ledger
	if l == nil {
		return
	}
	if t := l.Time; t != nil && t.LatencyMs > 0 {
		p.f("\nWhere the time goes (mean %s; every millisecond in one part):\n", units.FormatMs(t.LatencyMs))
		lines, _ := ledgerLines(t)
		var rest float64
		for _, ln := range lines {
			switch {
			case ln.Part == runfmt.PartUnexplained:
				if rest > 0 {
					p.f("  %-12s %10s %5s  parts under %s each\n", "other parts", units.FormatMs(rest), units.FormatPct(100*rest/t.LatencyMs), units.FormatPct(pageRowPct))
				}
			case ln.Pct < pageRowPct:
				rest += ln.Ms
				continue
			}
			p.f("  %-12s %10s %5s  %s\n", ln.Part, units.FormatMs(ln.Ms), units.FormatPct(ln.Pct), units.Shorten(pageWhere(ln, r.Quality.Noisy()), 70))
		}
		if nm := notMeasuredParts(t); len(nm) > 0 {
			p.f("  not measured: %s (why: --full)\n", strings.Join(nm, ", "))
		}
	}
	if a := l.CPU; a != nil && a.MeasuredMs > 0 {
		p.f("CPU per request: %s\n", wrap(cpuAccountText(a), pageWidth, "  "))
	}
}

// pageWhere is a time account row's evidence, less what the page says
// elsewhere: the unexplained row's description, the other processes of a
// noisy machine (its measurement line names them).
func pageWhere(ln ledgerLine, noisy bool) string {
	switch {
	case ln.Part == runfmt.PartUnexplained:
		return ""
	case ln.Part == runfmt.PartRunnable && noisy:
		return "waiting for a CPU, beside the other processes above"
	}
	return ln.Detail
}

// notMeasuredParts are the parts of the time account not measured, each
// once.
func notMeasuredParts(t *runfmt.TimeAccount) []string {
	var out []string
	for _, r := range t.Rows {
		if _, ok := r.Ms(); !ok && !slices.Contains(out, string(r.Part)) {
			out = append(out, string(r.Part))
		}
	}
	return out
}

// pageFindings lists the first findings, up to most of them, each with
// its costliest line, its advice and its payoff, then the consequences of
// the limit in one line (and the setting one of them names) and how many
// more there are.
func (p *printer) pageFindings(r *runfmt.Run, most int) {
	fs := r.Findings
	if len(fs) == 0 {
		return
	}
	p.f("\nFindings (%s):\n", findingsOrder(r.Answer))
	shown := 0
	var consequences []string
	var setting *runfmt.Finding
	for i := range fs {
		f := &fs[i]
		if f.ConsequenceOf != "" {
			if figure, _ := findingCost(f); figure != "" {
				consequences = append(consequences, string(f.Kind)+" "+figure)
			} else {
				consequences = append(consequences, string(f.Kind))
			}
			if setting == nil && settingAdvice(f.Advice) {
				setting = f
			}
			continue
		}
		if shown == most {
			continue
		}
		shown++
		p.pageFinding(shown, f, r.Answer, shown == 1)
	}
	if len(consequences) > 0 {
		p.f("  %s\n", wrap("Consequences of the saturated CPU, which shrink as the findings above are fixed: "+strings.Join(consequences, ", ")+" per request.", pageWidth, "  "))
	}
	if setting != nil {
		w := prose.Wording(setting)
		p.f("  %s\n", wrap(upperFirst(proseText(w.Title))+". "+proseText(w.Advice), pageWidth, "  "))
	}
	if more := len(fs) - shown - len(consequences); more > 0 {
		p.f("  and %d more (--full)\n", more)
	}
}

// settingAdvice says a finding's advice is a runtime setting that sizes
// the service to its budget: a consequence of the saturated CPU with such
// advice still has its setting shown, as it costs nothing to try.
func settingAdvice(a runfmt.Advice) bool {
	return a == runfmt.AdviceMatchGOMAXPROCS || a == runfmt.AdviceThreadsToQuota
}

// pageFinding writes one finding in up to four lines: its title, its
// costliest line, its advice and its payoff (the headline's first
// finding says its payoff there: lead).
func (p *printer) pageFinding(n int, f *runfmt.Finding, a *runfmt.Answer, lead bool) {
	w := prose.Wording(f)
	title := proseText(w.Title)
	if figure, what := findingCost(f); figure != "" && !strings.Contains(title, figure) {
		title += " — " + figure + what
	}
	p.f("  %d. [%s] %s\n", n, f.Kind, wrap(title, pageWidth, "     "))
	if len(f.Lines) > 0 {
		p.f("     %s\n", lineOfFinding(f.Lines[0]))
	}
	tail := proseText(w.Advice)
	if pay := payoffText(f, a); a != nil && pay != "" && !lead {
		tail = strings.TrimSpace(tail + " " + upperFirst(pay) + ".")
	}
	if tail != "" {
		p.f("     %s\n", wrap(tail, pageWidth, "     "))
	}
}

// pageFunctions lists the user functions that cost the most and that none
// of the first findings (those the page lists in full) names as its
// culprit.
func (p *printer) pageFunctions(r *runfmt.Run, findings int) {
	if !profileRepresentative(r) {
		return
	}
	named := map[string]bool{}
	for i, f := range r.Findings {
		if i == findings {
			break
		}
		if c, ok := f.Culprit(); ok {
			named[c.Function] = true
		}
	}
	var rows []runfmt.HotFunc
	for _, h := range r.Hot {
		if h.UserCode && !named[h.Function] && h.CPUUsPerRequest+h.AttributedUsReq > 0 && len(rows) < pageFunctions {
			rows = append(rows, h)
		}
	}
	if len(rows) == 0 {
		return
	}
	p.f("\nOther costly functions (CPU per request, with the library code they call):\n")
	for _, h := range rows {
		line := ""
		if len(h.Lines) > 0 {
			line = "  " + lineShort(h.Lines[0])
		}
		p.f("  %10s  %s%s\n", units.FormatMicros(h.CPUUsPerRequest+h.AttributedUsReq), funcname.Label(h.Function, h.File), units.Shorten(line, 60))
	}
}

// pageMore says where the run is and how to see the rest.
func (p *printer) pageMore(r *runfmt.Run, dir string) {
	p.f("\nRun %s: %s", r.ID, r.Status) // the status line above says why
	p.f("\n  perflab show %s --full    everything it measured\n", r.ID)
	if pr, ok := r.SavedProfile(runfmt.ProfileCPU); ok {
		p.f("  go tool pprof %s\n", filepath.Join(dir, pr.File))
	}
	p.f("  %s    charts and flame graphs, in a browser\n", filepath.Join(dir, "report.html"))
	for _, w := range r.Warnings {
		p.f("  warning: %s\n", wrap(w, pageWidth, "    "))
	}
}
