package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"perflab/internal/funcname"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// WriteVerdict writes what a run found after its load summary: what the
// service consumed, CPU per request, the GC's share, allocations per request,
// the findings and the top user-code functions.
func WriteVerdict(w io.Writer, r *runfmt.Run, dir string) error {
	p := &printer{w: w}
	p.f("\nService:\n")
	p.profiling(r)
	switch t := r.Target; {
	case r.Load == nil && r.Status == runfmt.StatusPartial:
		p.f("  not measured: the run stopped before its window (its status above says why)\n")
	case t != nil:
		p.target(t, r.Profiling, serviceVerdict(r))
	default:
		p.f("  not measured (no process: give -- CMD or --pid)\n")
	}
	if r.GC != nil {
		p.f("  GC:	%s\n", gcText(r.GC))
	}
	if r.AllocBytesPerRequest > 0 {
		p.f("  Allocations:\t%s and %.0f objects per request%s\n", units.FormatBytes(r.AllocBytesPerRequest), r.AllocObjectsPerRequest, measuringAllocs(r.Profiling))
	}
	p.goRuntime(r.GoRuntime)
	p.timeSplit(r)
	p.stuck(r.Stuck)
	p.findings(r.Findings, r.Answer)
	p.endpoints(r)
	if profileRepresentative(r) {
		p.hot(r.Hot)
	}
	p.runFiles(r, dir)
	return p.err
}

// target writes the service's CPU and memory figures, with the runtime's
// own work in pr's CPU profile after the CPU per request, and its
// verdict (serviceVerdict).
func (p *printer) target(t *runfmt.TargetSummary, pr *runfmt.Profiling, verdict string) {
	limit := "no CPU limit"
	if t.CPULimitCores > 0 {
		limit = fmt.Sprintf("of a %g-core budget", t.CPULimitCores)
	}
	p.f("  CPU used:\tmean %s, p95 %s, max %s (%s; measured from %s)\n", units.FormatCores(t.CPUCoresMean), units.Sig(t.CPUCoresP95), units.Sig(t.CPUCoresMax), limit, t.Source)
	if t.CPUPerRequestNote != "" {
		p.f("  CPU per request:\t%s\n", t.CPUPerRequestNote)
	} else {
		p.f("  CPU per request:\t%s\n", units.FormatMs(t.CPUMsPerRequest))
	}
	p.runtimeWork(pr)
	p.f("  Peak RSS:\t%s", units.FormatBytes(float64(t.RSSMaxBytes)))
	if t.MemoryLimitBytes > 0 {
		p.f(" (memory budget %s)", units.FormatBytes(float64(t.MemoryLimitBytes)))
	}
	p.f("\n")
	if t.CPULimitCores > 0 {
		p.f("  Throttled:\t%s of periods (%s)\n", units.FormatPct(t.ThrottledPct), units.FormatSeconds(t.ThrottledSeconds))
	}
	if verdict != "" {
		p.f("  Verdict:\t%s\n", verdict)
	}
	switch {
	case t.ExitCode == nil || *t.ExitCode == 0:
	case t.StoppedByPerflab:
		p.f("  Exit status:\t%d, on perflab's stop after the window (not a crash)\n", *t.ExitCode)
	default:
		p.f("  Exit status:\t%d\n", *t.ExitCode)
	}
}

func (p *printer) findings(fs []runfmt.Finding, a *runfmt.Answer) {
	if len(fs) == 0 {
		return
	}
	p.f("\nFindings (%s):\n", findingsOrder(a))
	for i := range fs {
		if i == 5 {
			p.f("  ... %d more in run.json\n", len(fs)-i)
			break
		}
		f := &fs[i]
		w := prose.Wording(f)
		title, cost := proseText(w.Title), ""
		if figure, what := findingCost(f); figure != "" && !strings.Contains(title, figure) { // else the title says it
			cost = " — " + figure + what
		}
		p.f("  %d. [%s] %s%s\n", i+1, f.Kind, title, cost)
		if a != nil {
			if pay := payoffText(f, a); pay != "" {
				p.f("     %s\n", wrap(upperFirst(pay), 100, "     "))
			}
		}
		p.lines(f.Lines, "     ")
		if d := proseText(w.Detail); d != "" {
			p.f("     %s\n", wrap(d, 100, "     "))
		}
	}
}

func (p *printer) hot(hot []runfmt.HotFunc) { p.userHot(hot, "CPU per request") }

// userHot writes the user functions that cost the most, under a heading
// saying what the figures are (per request, or in a batch program's run),
// each with the library under it, its database work and its costliest line.
func (p *printer) userHot(hot []runfmt.HotFunc, what string) {
	var user []runfmt.HotFunc
	for _, h := range hot {
		if h.UserCode {
			user = append(user, h)
		}
	}
	if len(user) == 0 {
		return
	}
	p.f("\nTop user-code functions (%s, with the library and runtime work they call):\n", what)
	p.f("  %12s %12s %7s  %s\n", "self+called", "cumulative", "cum%", "function")
	for i, h := range user {
		if i == 10 {
			break
		}
		self := h.CPUUsPerRequest + h.AttributedUsReq // its own code and what it called
		p.f("  %12s %12s %6.1f%%  %s\n", units.FormatMicros(self), units.FormatMicros(h.CumUsPerRequest), h.CumPct, funcname.Label(h.Function, h.File))
		held := ""
		if lf := h.LibraryFunc; lf != nil {
			held = funcname.LineLabel(lf.Function, lf.File, lf.Line)
		}
		if h.Library != "" && h.LibraryUsPerRequest > 0 {
			p.f("%slibrary %s under your %s: %s", strings.Repeat(" ", 37), h.Library,
				funcname.Short(h.Function, h.File), units.FormatMicros(h.LibraryUsPerRequest))
			if held != "" {
				p.f(", most in %s %s", held, units.FormatMicros(h.LibraryFunc.UsPerRequest))
			}
			p.f("\n")
		}
		if h.Library == "" && h.AttributedSample != "" {
			p.f("%smost in %s", strings.Repeat(" ", 37), h.AttributedSample)
			if held != "" {
				p.f(" → %s %s", held, units.FormatMicros(h.LibraryFunc.UsPerRequest))
			}
			p.f("\n")
		}
		if h.DatabaseUsPerRequest > 0 {
			p.f("%sdatabase work (a database client under it): %s\n", strings.Repeat(" ", 37), units.FormatMicros(h.DatabaseUsPerRequest))
		}
		if len(h.Lines) > 0 {
			p.lines(h.Lines[:1], strings.Repeat(" ", 37)+"at ")
		}
	}
}

func (p *printer) runFiles(r *runfmt.Run, dir string) {
	p.f("\nRun %s: %s", r.ID, r.Status)
	if r.PartialReason != "" {
		p.f(" (%s)", r.PartialReason)
	}
	p.f("\n  %s\n", filepath.Join(dir, runfmt.FileName))
	if pr, ok := r.SavedProfile(runfmt.ProfileCPU); ok {
		p.f("  go tool pprof %s\n", filepath.Join(dir, pr.File))
	}
	p.f("  perflab ui --dir %s   (this run and the others, in a browser)\n", filepath.Dir(dir))
	for _, w := range r.Warnings {
		p.f("  warning: %s\n", w)
	}
}

// GCShareText is the GC's share of CPU with its source ("12.5% of CPU
// (cpu-profile)"), or why it is unknown.
func GCShareText(g *runfmt.GCSummary) string {
	if g.CPUPctNote != "" {
		return g.CPUPctNote
	}
	if g.CPUPctSource == "" {
		return units.FormatPct(g.CPUPct) + " of CPU"
	}
	return fmt.Sprintf("%s of CPU (%s)", units.FormatPct(g.CPUPct), g.CPUPctSource)
}

// gcText is the GC's line of a verdict: cycles, share of the CPU, pauses,
// heap and allocation rate.
// measuringAllocs says what perflab's own profile and trace requests
// allocated per request besides the service's allocations, "" when
// nothing.
func measuringAllocs(pr *runfmt.Profiling) string {
	if pr == nil || pr.Measuring == nil || pr.Measuring.AllocBytesPerRequest <= 0 {
		return ""
	}
	return " (perflab's profile and trace requests: " + units.FormatBytes(pr.Measuring.AllocBytesPerRequest) + " more, counted apart)"
}

func gcText(g *runfmt.GCSummary) string {
	s := fmt.Sprintf("%d cycles, %s, pauses p50 %s, p99 %s, heap up to %s", g.Count, GCShareText(g), units.FormatMs(g.PauseP50Ms), units.FormatMs(g.PauseP99Ms), units.FormatBytes(g.HeapMaxMiB*(1<<20)))
	if g.AllocMiBPerS > 0 {
		s += fmt.Sprintf(", ~%s/s allocated", units.FormatBytes(g.AllocMiBPerS*(1<<20)))
	}
	return s
}

func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && n+1+len(word) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
