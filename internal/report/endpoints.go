package report

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// endpointRow is one row of the per-endpoint table: a load target with the
// handler that served it, or a handler the load's targets do not name.
type endpointRow struct {
	Target                   string // "GET /search?q=steel"; "" for a handler without a target
	Requests, Errors         string
	P50, P99                 string
	Status                   string
	CPU, CPUPct              string
	Handler, Owner, OwnerPct string
	// margin is CPU's 95% margin from the count of its handlers' samples,
	// relative to it (0: not counted), samples that count, and handlers
	// how many handlers hold them.
	margin            float64
	samples, handlers int64
	// wholeLoad says CPU is per request of the whole load (wholeLoadMark).
	wholeLoad bool
}

// wholeLoadMark marks a CPU per request of the whole load (a handler not
// tied to a target).
const wholeLoadMark = "*"

// wideMargin is the relative margin of an endpoint's CPU from which the
// table says how few samples it rests on.
const wideMargin = 0.10

// setCPU sets the CPU per request, its mark and its margin ("3.1 ms*
// ±12%"), the margin left out when under 1%.
func (row *endpointRow) setCPU(us float64, mark string, marginUs float64) {
	row.CPU, row.margin, row.wholeLoad = units.FormatMicros(us)+mark, 0, mark == wholeLoadMark
	if us > 0 && marginUs > 0 {
		row.margin = marginUs / us
	}
	if pct := 100 * row.margin; pct >= 1 {
		row.CPU += fmt.Sprintf(" ±%s", units.FormatPct(pct))
	}
}

// endpointTable builds the per-endpoint rows of a run: one per load
// target (when the load had several) with its handler's CPU, then the
// handlers no target is tied to ("(not a load target)": other traffic,
// or a handler perflab could not tie to a URL; a run without a load lists
// its handlers alone). nil when there is nothing to break down: a load of
// one URL is that endpoint's, whose figures the run's own are.
func endpointTable(r *runfmt.Run) []endpointRow {
	var targets []runfmt.TargetStats
	if r.Load != nil {
		targets = r.Load.Targets
	}
	var handlers []runfmt.EndpointCPU
	var perTarget []runfmt.TargetCPU
	if r.Endpoints != nil {
		handlers, perTarget = r.Endpoints.Handlers, r.Endpoints.Targets
	}
	if len(targets) == 1 || len(targets) == 0 && len(handlers) < 2 {
		return nil
	}
	short := shortTargets(targets)
	var rows []endpointRow
	used := map[int]bool{}
	for ti, t := range targets {
		row := endpointRow{Target: short[ti], Requests: fmt.Sprint(t.Requests), Errors: fmt.Sprint(t.Errors),
			P50: latencyCell(t.Latency.P50), P99: latencyCell(t.Latency.P99), Status: statusText(t.Status)}
		// A target served by several handlers gets a row for each after
		// its first: its CPU/request, on the target's row, is theirs
		// together.
		var more []endpointRow
		for hi, h := range handlers {
			if !containsStr(h.Targets, t.Target) {
				continue
			}
			used[hi] = true
			if row.Handler == "" {
				row.fillCPU(h)
				continue
			}
			next := endpointRow{Target: short[ti]}
			next.fillCPU(h)
			more = append(more, next)
		}
		for _, tc := range perTarget {
			if tc.Target == t.Target && tc.CPUUsPerRequest > 0 {
				row.setCPU(tc.CPUUsPerRequest, "", tc.MarginUsPerRequest) // its handlers' and its share of the requests' handling
				row.samples, row.handlers = targetSamples(handlers, t.Target)
				for i := range more {
					more[i].CPU, more[i].margin, more[i].wholeLoad = "", 0, false
				}
			}
		}
		rows = append(append(rows, row), more...)
	}
	for hi, h := range handlers {
		if used[hi] {
			continue
		}
		row := endpointRow{}
		if len(targets) > 0 {
			row.Target = notALoadTarget
		}
		row.fillCPU(h)
		rows = append(rows, row)
	}
	return rows
}

// notALoadTarget names a handler's row that no target of the load is
// tied to.
const notALoadTarget = "(not a load target)"

func (row *endpointRow) fillCPU(h runfmt.EndpointCPU) {
	row.Handler = shortName(h.Handler)
	row.CPUPct = units.FormatPct(h.CPUPct)
	row.samples, row.handlers = h.Samples, 1
	if h.CPUUsPerRequest > 0 {
		mark := ""
		if !h.PerTargetRequest {
			mark = wholeLoadMark
		}
		row.setCPU(h.CPUUsPerRequest, mark, h.MarginUsPerRequest)
	}
	if h.Owner != "" && h.Owner != h.Handler {
		row.Owner = shortName(h.Owner)
		row.OwnerPct = units.FormatPct(h.OwnerPct)
	}
}

// shortTargets drops the scheme and host when every target has the same.
func shortTargets(ts []runfmt.TargetStats) []string {
	out := make([]string, len(ts))
	host := ""
	same := true
	for i, t := range ts {
		out[i] = t.Target
		method, raw, _ := strings.Cut(t.Target, " ")
		u, err := url.Parse(raw)
		if err != nil {
			same = false
			continue
		}
		if i == 0 {
			host = u.Scheme + "://" + u.Host
		} else if u.Scheme+"://"+u.Host != host {
			same = false
		}
		out[i] = method + " " + u.RequestURI()
	}
	if !same {
		for i, t := range ts {
			out[i] = t.Target
		}
	}
	return out
}

func statusText(st map[string]int64) string {
	var parts []string
	for _, k := range sortedKeys(st) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, st[k]))
	}
	return strings.Join(parts, " ")
}

// latencyCell is a latency for a table: "-" when none was measured (no
// request of the target succeeded).
func latencyCell(ms float64) string {
	if ms == 0 {
		return "-"
	}
	return units.FormatMs(ms)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shortName drops a Go function's package path.
func shortName(fn string) string {
	if strings.ContainsAny(fn, " <[") {
		return fn
	}
	rel := fn[strings.LastIndexByte(fn, '/')+1:]
	if _, r, ok := strings.Cut(rel, "."); ok && !strings.HasPrefix(fn, "main.") {
		return r
	}
	return rel
}

// endpoints writes the per-endpoint table of the verdict.
func (p *printer) endpoints(r *runfmt.Run) {
	rows := endpointTable(r)
	e := r.Endpoints
	if rows == nil {
		if e != nil && e.Note != "" && r.Load != nil && len(r.Load.Targets) > 1 {
			p.f("\nPer endpoint: %s\n", e.Note)
		}
		return
	}
	p.f("\nPer endpoint")
	if e != nil && len(e.Handlers) > 0 {
		p.f(" (%s)", endpointParts(e))
	}
	p.f(":\n")
	cells := [][]string{{"target", "requests", "errors", "p50", "p99", "CPU/request", "CPU", "handler → owner"}}
	for _, row := range rows {
		target := dash(row.Target)
		owner := row.Handler
		if row.Owner != "" {
			owner += " → " + row.Owner + " " + row.OwnerPct
		}
		cells = append(cells, []string{target, dash(row.Requests), dash(row.Errors), dash(row.P50), dash(row.P99), dash(row.CPU), dash(row.CPUPct), owner})
	}
	p.table(cells, "  ", false, true, true, true, true, true, true, false)
	notes := []string{}
	for _, row := range rows {
		if row.wholeLoad {
			notes = append(notes, wholeLoadMark+" per request of the whole load: perflab could not tell which target this handler served")
			break
		}
	}
	if n := marginNote(rows, e); n != "" {
		notes = append(notes, n)
	}
	if e != nil && e.Note != "" {
		notes = append(notes, e.Note)
	}
	for _, n := range notes {
		p.f("  %s\n", n)
	}
}

// targetSamples counts the samples of the handlers whose CPU is per request
// of target (the handlers its margin is of), and those handlers.
func targetSamples(handlers []runfmt.EndpointCPU, target string) (samples, n int64) {
	for _, h := range handlers {
		if h.PerTargetRequest && containsStr(h.Targets, target) {
			samples += h.Samples
			n++
		}
	}
	return samples, n
}

// marginNote says what ± is when some row's is wide, naming the row
// whose is widest and the samples it rests on, and the part of every
// row's from the waits the profiler counted as work (e's WaitMarginPct);
// "" when none is wide.
func marginNote(rows []endpointRow, e *runfmt.Endpoints) string {
	widest := -1
	for i, row := range rows {
		if row.margin >= wideMargin && (widest < 0 || row.margin > rows[widest].margin) {
			widest = i
		}
	}
	if widest < 0 {
		return ""
	}
	row := rows[widest]
	name, verb := row.Handler, "rests"
	switch {
	case row.Target == "" || row.Target == notALoadTarget:
	case row.handlers > 1:
		name, verb = fmt.Sprintf("the %d handlers of %s", row.handlers, row.Target), "rest"
	default:
		name += ", for " + row.Target + ","
	}
	if e == nil || e.WaitMarginPct < 1 {
		return fmt.Sprintf("± is the 95%% margin from the count of a handler's samples alone: %s %s on %d samples (±%s); a longer run (--duration) or a higher --perf-hz narrows it",
			name, verb, row.samples, units.FormatPct(100*row.margin))
	}
	return fmt.Sprintf("± is the 95%% margin from the count of a handler's samples (%s %s on %d samples, ±%s in all) and from the threads' waits for a CPU, which the profiler counted as work (the profile stands for %s× the CPU measured: ±%s on every row, the long requests' figures likelier high, the short ones' low); a longer run (--duration) or a higher --perf-hz narrows the first, a quieter machine the second",
		name, verb, row.samples, units.FormatPct(100*row.margin), units.Sig(1+e.WaitMarginPct/100), units.FormatPct(e.WaitMarginPct))
}

// endpointParts says what the handlers explain of the CPU, and the rest:
// the requests' handling outside them, charged to every request alike,
// and what ran under no request.
func endpointParts(e *runfmt.Endpoints) string {
	s := fmt.Sprintf("CPU from %s: %s of the CPU", endpointSourceText(e), units.FormatPct(e.ExplainedPct))
	if e.RequestPct == 0 && e.UnattributedPct == 0 { // a run.json written before the split
		return s + fmt.Sprintf("; the rest, %s, is the requests' handling outside the handlers, the runtime and background work", units.FormatPct(100-e.ExplainedPct))
	}
	if e.RequestPct > 0 {
		s += fmt.Sprintf("; the requests' handling outside the handlers %s", units.FormatPct(e.RequestPct))
		if e.RequestUsPerRequest > 0 {
			s += fmt.Sprintf(", %s per request, is in every target's CPU/request", units.FormatMicros(e.RequestUsPerRequest))
		}
	}
	return s + fmt.Sprintf("; under no request %s (the runtime, background work, a master process, perflab's profile requests)", units.FormatPct(e.UnattributedPct))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// targets writes the load summary's per-target table (a load with several
// targets): requests, errors, latency percentiles and status codes.
func (p *printer) targets(ts []runfmt.TargetStats) {
	if len(ts) < 2 {
		return
	}
	short := shortTargets(ts)
	p.f("\nPer target:\n")
	cells := [][]string{{"target", "requests", "errors", "p50", "p90", "p99", "max", "status codes"}}
	for i, t := range ts {
		st := statusText(t.Status)
		for _, k := range sortedKeys(t.ErrorKinds) {
			if !strings.HasPrefix(k, "status-") { // the status codes say it
				st += fmt.Sprintf(" %s×%d", k, t.ErrorKinds[k])
			}
		}
		cells = append(cells, []string{short[i], fmt.Sprint(t.Requests), fmt.Sprint(t.Errors),
			latencyCell(t.Latency.P50), latencyCell(t.Latency.P90), latencyCell(t.Latency.P99), latencyCell(t.Latency.Max), strings.TrimSpace(st)})
	}
	p.table(cells, "  ", false, true, true, true, true, true, true, false)
}

// table writes cells as aligned columns two spaces apart, each right- or
// left-aligned as right says; the last column is not padded.
func (p *printer) table(cells [][]string, indent string, right ...bool) {
	width := make([]int, len(right))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range cells {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i > 0:
				b.WriteString("  ")
			}
			switch {
			case right[i]:
				b.WriteString(pad + c)
			case i == len(row)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		p.f("%s\n", b.String())
	}
}

// endpointSourceText says how the CPU was attributed to endpoints: by
// which dispatch's handler frames (a run before schema 5 kept its own
// words).
func endpointSourceText(e *runfmt.Endpoints) string {
	switch e.Dispatch {
	case "":
		return e.Source
	case runfmt.DispatchNetHTTP:
		return "Go net/http handler frames in the CPU profile"
	}
	return e.Dispatch + " handlers under the framework's dispatch in the CPU profile"
}
