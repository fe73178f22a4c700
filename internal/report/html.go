package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

//go:embed assets/report.html.tmpl assets/report.css
var assets embed.FS

var reportTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{"sloValue": FormatSLOValue}).ParseFS(assets, "assets/report.html.tmpl"))

// Flames are the flame graph pages a report embeds (analysis.WriteFlameHTML
// output; nil leaves one out): the CPU profile's and the off-CPU one of the
// wall-time profile.
type Flames struct {
	CPU, OffCPU []byte
}

// WriteHTMLFlames writes a run's report as one self-contained HTML page (no
// network needed to view it): the run's name, status and configuration,
// what the measurement is worth, the load summary, charts (latency by
// percentile and over time, throughput, CPU against the budget with
// throttling, memory with the GC) as inline SVG, the verdict (CPU per
// request, GC, allocations), the findings with their culprit lines, the
// per-endpoint table, the hot user functions, the time per request, and
// the interactive flame graphs, embedded in iframes; a nil page leaves its
// flame graph out, saying why.
func WriteHTMLFlames(w io.Writer, r *runfmt.Run, flames Flames) error {
	return WriteHTMLWith(w, r, HTMLOptions{Flame: flames.CPU, OffCPUFlame: flames.OffCPU})
}

// HTMLOptions is what the page around a report adds to it.
type HTMLOptions struct {
	// Flame is the CPU flame graph page to embed (see Flames), and
	// OffCPUFlame the wall-time profile's off-CPU one.
	Flame, OffCPUFlame []byte
	// Crumbs are breadcrumbs shown above the report: where it sits in the
	// UI, the last one the report itself.
	Crumbs []Crumb
	// FlameURL and SourceURL, when set, give the links of a function's
	// frame in a flame graph page and of its source view (in the UI);
	// otherwise findings link to the embedded flame graph and to their
	// source snippet in the page.
	FlameURL, SourceURL func(function string) string
	// OffCPUFlameURL is FlameURL for waits: a function's frame in the
	// off-CPU flame graph.
	OffCPUFlameURL func(function string) string
	// FilesHref is where the run directory's files are, relative to the
	// page ("files/" in the UI); "" for report.html, which sits in it.
	FilesHref string
}

// Crumb is one step of breadcrumbs: a label and where it leads ("" for the
// current page).
type Crumb struct{ Label, Href string }

// WriteHTMLWith writes a run's report as WriteHTMLFlames does, with opt.
func WriteHTMLWith(w io.Writer, r *runfmt.Run, opt HTMLOptions) error {
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	v := newHTMLView(r, opt)
	v.CSS = template.CSS(css)
	if err := reportTmpl.Execute(w, v); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

// htmlView is what the template shows, computed from the run.
type htmlView struct {
	Run     *runfmt.Run
	CSS     template.CSS
	Partial bool
	Config  []kv
	Cards   []card
	Charts  []figure
	// NoCharts says why there are no charts (no load was measured).
	NoCharts string
	Verdict  []kv
	Findings []htmlFinding
	// FindingsOrder says how the findings are ranked.
	FindingsOrder string
	Hot           []htmlHot
	Endpoints     []endpointRow
	EndParts      string // what the handlers explain of the CPU, and the rest
	EndNote       string
	EndMargin     string // what ± is, when some row's margin is wide
	Allocs        []htmlAlloc
	Flame         string
	HasFlame      bool
	// NoFlame says why there is no flame graph.
	NoFlame   string
	Crumbs    []Crumb
	Requests  int64
	StartedAt string
	// Headline is shown first: measurement, status, errors, SLO.
	Headline    *Headline
	StatusClass string
	SLOMissed   bool

	// Time is the time per request; OffFlame the off-CPU flame graph.
	Time        *htmlTime
	Ledger      *htmlLedger // where the time goes (ledgerhtml.go)
	OffFlame    string
	HasOffFlame bool

	// FindMax is a find-max run's search (findmaxhtml.go).
	FindMax *htmlFindMax

	// NoHot says why the hot functions are not listed.
	NoHot string
	// FilesHref leads to the run directory's files (see HTMLOptions).
	FilesHref string
}

type kv struct{ K, V string }

// card is one headline number.
type card struct {
	Label, Value, Note string
	Warn               bool
}

type htmlFinding struct {
	Rank       int
	Kind, Cost string
	// Payoff says what fixing it saves, or what it is a consequence of.
	Payoff        string
	Title, Detail template.HTML
	Functions     []string
	Lines         []htmlLine
	// Frame names the function the finding's links show; FlameHref and
	// SourceHref lead to its frame in a flame graph (the off-CPU one for a
	// wait, FlameFrame naming the embedded graph) and its source ("" when
	// there is none to show).
	Frame, FlameHref, SourceHref, FlameFrame string
	wait                                     bool
}

type htmlHot struct {
	Self, Cum, CumPct, Function, File, Callee string
	Bar                                       float64 // width of the cost bar, 0-100
	Line                                      string  // its costliest source line
	FlameHref, SourceHref, FlameFrame         string
}

type htmlAlloc struct {
	Bytes, Objects, Function string
}

func newHTMLView(r *runfmt.Run, opt HTMLOptions) *htmlView {
	v := &htmlView{Run: r, Partial: r.Status != runfmt.StatusComplete, StartedAt: r.Started.Format("2006-01-02 15:04:05 MST"), Crumbs: opt.Crumbs, FilesHref: opt.FilesHref}
	if len(opt.Flame) > 0 {
		v.Flame, v.HasFlame = string(opt.Flame), true
	} else {
		v.NoFlame = noFlameReason(r)
	}
	v.Time, v.Ledger = timeView(r), ledgerView(r)
	if len(opt.OffCPUFlame) > 0 {
		v.OffFlame, v.HasOffFlame = string(opt.OffCPUFlame), true
	}
	if r.Load != nil {
		v.Requests = r.Load.Requests
	}
	h := NewHeadline(r)
	h.Lines = append(h.Lines, profilingLines(r)...)
	if len(h.Lines) > 0 || len(h.SLO) > 0 {
		v.Headline, v.SLOMissed = &h, runfmt.SLOMissed(h.SLO)
	}
	v.StatusClass = map[string]string{runfmt.StatusComplete: "ok", runfmt.StatusDegraded: "degraded"}[r.Status]
	if v.StatusClass == "" {
		v.StatusClass = "partial"
	}
	v.Config = configRows(r)
	v.Cards = cards(r)
	v.FindMax = findMaxView(r)
	v.Charts = charts(r)
	if len(v.Charts) == 0 {
		v.NoCharts = noChartsReason(r)
	}
	v.Verdict = verdictRows(r)
	if r.Batch != nil {
		v.batchHTML(r)
	}
	v.Findings, v.FindingsOrder = findingsView(r.Findings, r.Answer), findingsOrder(r.Answer)
	if profileRepresentative(r) {
		v.Hot = hotView(r.Hot, v.Requests > 0)
	} else {
		v.NoHot = "Not listed: the CPU profile does not account for the CPU measured (" + NotRepresentativeText(r.Profiling) + ")."
	}
	v.addLinks(opt)
	v.Endpoints = endpointTable(r)
	v.EndMargin = marginNote(v.Endpoints, r.Endpoints)
	if r.Endpoints != nil {
		v.EndNote = r.Endpoints.Note
		if len(r.Endpoints.Handlers) > 0 {
			v.EndParts = endpointParts(r.Endpoints) + "."
		}
	}
	v.Allocs = allocView(r.Allocs)
	return v
}

func configRows(r *runfmt.Run) []kv {
	c := r.Config
	var rows []kv
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, kv{k, v})
		}
	}
	add("URL", c.URL)
	add("Command", strings.Join(c.Command, " "))
	if c.PID > 0 {
		add("PID", fmt.Sprint(c.PID))
	}
	if c.CPUs > 0 {
		add("CPU budget", fmt.Sprintf("%g cores", c.CPUs))
	}
	if c.MemoryBytes > 0 {
		add("Memory budget", units.FormatBytes(float64(c.MemoryBytes)))
	}
	add("Load", sortedPairs(c.Load))
	if c.WarmupS > 0 {
		add("Warm-up", units.FormatSeconds(c.WarmupS))
	}
	add("Environment", sortedPairs(c.Env))
	e := r.Env
	host := fmt.Sprintf("%s, %d cores, %s, cgroup %s", e.Hostname, e.HostCores, e.Kernel, e.CgroupVersion)
	add("Host", host)
	if e.GitCommit != "" {
		dirty := ""
		if e.GitDirty {
			dirty = " (dirty)"
		}
		add("Git commit", e.GitCommit+dirty)
	}
	add("perflab", e.PerflabVersion+" ("+e.GoVersion+")")
	return rows
}

func sortedPairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, " ")
}

func cards(r *runfmt.Run) []card {
	var cs []card
	if l := r.Load; l != nil {
		errPct := 0.0
		if l.Requests > 0 {
			errPct = 100 * float64(l.Errors) / float64(l.Requests)
		}
		note := fmt.Sprintf("%d requests in %s, %s model", l.Requests, units.FormatSeconds(l.DurationS), l.Model)
		if l.TargetRPS > 0 {
			note += fmt.Sprintf(", target %.0f/s", l.TargetRPS)
		}
		p50 := card{Label: "Latency p50", Value: units.FormatMs(l.Latency.P50), Note: fmt.Sprintf("mean %s", units.FormatMs(l.Latency.Mean))}
		p99 := card{Label: "Latency p99", Value: units.FormatMs(l.Latency.P99), Note: fmt.Sprintf("p95 %s, max %s", units.FormatMs(l.Latency.P95), units.FormatMs(l.Latency.Max))}
		if l.Requests == l.Errors { // no latency was measured, not a latency of 0
			p50.Value, p50.Note, p50.Warn = "–", "no request succeeded", true
			p99.Value, p99.Note, p99.Warn = "–", "no request succeeded", true
		}
		cs = append(cs,
			card{Label: "Throughput", Value: fmt.Sprintf("%.1f req/s", l.RPS), Note: note}, p50, p99,
			card{Label: "Errors", Value: units.FormatPct(errPct), Note: fmt.Sprintf("%d of %d", l.Errors, l.Requests), Warn: l.Errors > 0})
	}
	if t := r.Target; t != nil {
		if t.CPUPerRequestNote != "" {
			cs = append(cs, card{Label: "CPU per request", Value: "—", Note: t.CPUPerRequestNote})
		}
		if t.CPUMsPerRequest > 0 {
			cs = append(cs, card{Label: "CPU per request", Value: units.FormatMs(t.CPUMsPerRequest), Note: fmt.Sprintf("measured from %s", t.Source)})
		}
		limit := "no CPU limit"
		if t.CPULimitCores > 0 {
			limit = fmt.Sprintf("of a %g-core budget", t.CPULimitCores)
		}
		cs = append(cs, card{Label: "CPU used", Value: units.FormatCores(t.CPUCoresMean), Note: fmt.Sprintf("mean, max %s, %s", units.Sig(t.CPUCoresMax), limit), Warn: t.CPUBound})
		if t.CPULimitCores > 0 {
			cs = append(cs, card{Label: "Throttled", Value: units.FormatPct(t.ThrottledPct), Note: fmt.Sprintf("of periods (%s)", units.FormatSeconds(t.ThrottledSeconds)), Warn: throttlingFound(r)})
		}
		cs = append(cs, card{Label: "Peak RSS", Value: units.FormatBytes(float64(t.RSSMaxBytes)), Note: memNote(t)})
	}
	if g := r.GC; g != nil { // highlighted when its share made the GC a finding
		value := units.FormatPct(g.CPUPct)
		if g.CPUPctNote != "" {
			value = "unknown"
		}
		cs = append(cs, card{Label: "GC share of CPU", Value: value, Note: fmt.Sprintf("%d cycles, pause p99 %s", g.Count, units.FormatMs(g.PauseP99Ms)), Warn: hasFinding(r, runfmt.FindingGC)})
	}
	if b := r.AllocBytesPerRequest; b > 0 && r.Load != nil {
		cs = append(cs, card{Label: "Allocated per request", Value: units.FormatBytes(b), Note: fmt.Sprintf("%.0f objects", r.AllocObjectsPerRequest)})
	}
	return cs
}

func memNote(t *runfmt.TargetSummary) string {
	if t.MemoryLimitBytes > 0 {
		return "of a " + units.FormatBytes(float64(t.MemoryLimitBytes)) + " budget"
	}
	return "no memory limit"
}

func verdictRows(r *runfmt.Run) []kv {
	var rows []kv
	if t := r.Target; t != nil {
		if v := serviceVerdict(r); v != "" {
			rows = append(rows, kv{"Service", v})
		}
		if t.CPUMsPerRequest > 0 {
			rows = append(rows, kv{"CPU per request", fmt.Sprintf("%s (%s for %s req/s)", units.FormatMs(t.CPUMsPerRequest), units.FormatCores(t.CPUCoresMean), units.Sig(rps(r)))})
		}
	}
	if g := r.GC; g != nil {
		s := gcText(g)
		if g.GOGC != "" {
			s += ", GOGC=" + g.GOGC
		}
		rows = append(rows, kv{"Garbage collector", s})
	}
	if b := r.AllocBytesPerRequest; b > 0 && r.Load != nil {
		// The allocation profile's total, as the text verdict prints it:
		// the rows of r.Allocs overlap (user functions carry cumulative
		// cost) and do not add up to it.
		rows = append(rows, kv{"Allocations", fmt.Sprintf("%s and %.0f objects per request", units.FormatBytes(b), r.AllocObjectsPerRequest)})
	}
	return rows
}

func rps(r *runfmt.Run) float64 {
	if r.Load == nil {
		return 0
	}
	return r.Load.RPS
}

func findingsView(fs []runfmt.Finding, a *runfmt.Answer) []htmlFinding {
	out := make([]htmlFinding, 0, len(fs))
	for i := range fs {
		f := &fs[i]
		w := prose.Wording(f)
		h := htmlFinding{Rank: i + 1, Kind: string(f.Kind), Title: proseHTML(w.Title), Detail: proseHTML(w.Detail), Functions: f.Names(),
			Lines: linesView(f.Lines), wait: waits(f)}
		if figure, what := findingCost(f); figure != "" {
			h.Cost = figure + what
		}
		if a != nil {
			h.Payoff = upperFirst(payoffText(f, a))
		}
		out = append(out, h)
	}
	return out
}

// hotView lists the user-code functions (up to 15), with cost per request
// when the run had requests, else with their share.
func hotView(hot []runfmt.HotFunc, perReq bool) []htmlHot {
	var out []htmlHot
	maxPct := 0.0
	for _, h := range hot {
		if h.UserCode {
			maxPct = math.Max(maxPct, h.CumPct)
		}
	}
	for _, h := range hot {
		if !h.UserCode || len(out) == 15 {
			continue
		}
		self := h.CPUUsPerRequest + h.AttributedUsReq // its own code and what it called
		row := htmlHot{CumPct: units.FormatPct(h.CumPct), Function: h.Function, File: h.File, Callee: h.AttributedSample}
		if len(h.Lines) > 0 {
			row.Line = lineText(h.Lines[0])
		}
		if perReq {
			row.Self, row.Cum = units.FormatMicros(self), units.FormatMicros(h.CumUsPerRequest)
		} else {
			row.Self, row.Cum = units.FormatPct(h.FlatPct), "-"
		}
		if maxPct > 0 {
			row.Bar = 100 * h.CumPct / maxPct
		}
		out = append(out, row)
	}
	return out
}

func allocView(as []runfmt.AllocFunc) []htmlAlloc {
	var out []htmlAlloc
	for _, a := range as {
		if !a.UserCode || len(out) == 10 {
			continue
		}
		out = append(out, htmlAlloc{Bytes: units.FormatBytes(a.BytesPerRequest), Objects: fmt.Sprintf("%.0f", a.ObjectsPerRequest), Function: a.Function})
	}
	return out
}
