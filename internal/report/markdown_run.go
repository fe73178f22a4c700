package report

import (
	"fmt"
	"io"
	"strings"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// RunVerdict settles a run for CI: fail when it is partial, its requests
// stopped finishing (the service hung) or it missed an --slo objective, warn when it is degraded or was measured on a noisy
// machine, pass otherwise.
func RunVerdict(r *runfmt.Run) runfmt.Verdict {
	v := runfmt.Verdict{Status: runfmt.VerdictPass, Reasons: []string{}}
	fail := func(reason string) {
		v.Status = runfmt.VerdictFail
		v.Reasons = append(v.Reasons, reason)
	}
	if r.Status == runfmt.StatusPartial {
		fail("partial: " + r.PartialReason)
	}
	if r.Stuck != nil {
		fail(stuckReason(r))
	}
	if r.Load != nil {
		for _, c := range r.Load.SLO {
			if !c.Pass {
				fail(fmt.Sprintf("SLO missed: %s=%s (want %s)", c.Metric, FormatSLOValue(c), c.Objective))
			}
		}
	}
	var warns []string
	if r.Status == runfmt.StatusDegraded {
		warns = append(warns, "degraded: "+DegradedText(r))
	}
	if q := r.Quality; q.Noisy() {
		why := QualityLine(q) // a run that kept no reasons
		if causes := QualityCauses(q); len(causes) > 0 {
			why = strings.Join(causes, "; ")
		}
		warns = append(warns, "noisy measurement: "+why)
	}
	if len(warns) > 0 && v.Status == runfmt.VerdictPass {
		v.Status = runfmt.VerdictWarn
	}
	v.Reasons = append(v.Reasons, warns...)
	return v
}

// stuckReason is why a run whose requests stopped finishing fails: the
// title of its stuck finding, which the run holds among its findings.
func stuckReason(r *runfmt.Run) string {
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingStuck {
			return "requests stopped finishing: " + FindingTitle(f)
		}
	}
	return "requests stopped finishing"
}

// WriteRunMarkdown writes a run as a GitHub-flavoured markdown summary: the
// verdict in one line, the headline (measurement, status, errors), the
// figures, the SLO's objectives, where the CPU goes per request, the
// findings and the run's files — under opt.Limit bytes.
func WriteRunMarkdown(w io.Writer, r *runfmt.Run, dir string, opt MarkdownOptions) error {
	return writeFitted(w, opt.Limit, 3, func(level int) string {
		var b strings.Builder
		b.WriteString("### " + runHeadline(r) + "\n\n")
		for _, l := range append(NewHeadline(r).Lines, profilingLines(r)...) {
			b.WriteString("**" + mdText(l.Label) + "**: " + mdText(l.Text) + "  \n")
		}
		b.WriteString("\n")
		mdRunFigures(&b, r)
		mdLedger(&b, r)
		mdSLO(&b, r)
		if profileRepresentative(r) {
			mdHot(&b, r.Hot, []int{10, 5, 0}[level])
		}
		mdFindings(&b, r.Findings, r.Answer, []int{10, 5, 3}[level])
		mdRunFiles(&b, r, dir, opt)
		return b.String()
	})
}

func runHeadline(r *runfmt.Run) string {
	v := RunVerdict(r)
	what := "perflab run " + mdCode(r.ID)
	if l, t := r.Load, r.Target; l != nil {
		what += fmt.Sprintf(": %s req/s, p99 %s", mdText(cmpSig3(l.RPS)), mdText(FormatMetric(l.Latency.P99, runfmt.UnitMs)))
		if t != nil && t.CPUMsPerRequest > 0 {
			what += ", " + mdText(FormatMetric(t.CPUMsPerRequest, runfmt.UnitMs)) + " CPU per request"
		}
	}
	switch v.Status {
	case runfmt.VerdictFail:
		return markFail + " " + what + " — " + mdText(strings.Join(v.Reasons, "; "))
	case runfmt.VerdictWarn:
		return markWarn + " " + what + " — " + mdText(strings.Join(v.Reasons, "; "))
	}
	return markPass + " " + what
}

func mdRunFigures(b *strings.Builder, r *runfmt.Run) {
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k, mdText(v)}) }
	if l := r.Load; l != nil {
		add("requests", fmt.Sprintf("%d in %s, %d errors", l.Requests, units.FormatSeconds(l.DurationS), l.Errors))
		add("requests/s", cmpSig3(l.RPS))
		add("latency p50 · p90 · p99 · max", fmt.Sprintf("%s · %s · %s · %s", FormatMetric(l.Latency.P50, runfmt.UnitMs),
			FormatMetric(l.Latency.P90, runfmt.UnitMs), FormatMetric(l.Latency.P99, runfmt.UnitMs), FormatMetric(l.Latency.Max, runfmt.UnitMs)))
	}
	if t := r.Target; t != nil {
		add("CPU per request", FormatMetric(t.CPUMsPerRequest, runfmt.UnitMs))
		cores := fmt.Sprintf("mean %.2f, max %.2f", t.CPUCoresMean, t.CPUCoresMax)
		if t.CPULimitCores > 0 {
			cores += fmt.Sprintf(" of a %s-core budget (throttled %s of periods)", units.Sig(t.CPULimitCores), units.FormatPct(t.ThrottledPct))
		}
		add("CPU cores", cores)
		add("peak RSS", units.FormatBytes(float64(t.RSSMaxBytes)))
	}
	if r.AllocBytesPerRequest > 0 {
		add("allocations per request", fmt.Sprintf("%s, %.0f objects", units.FormatBytes(r.AllocBytesPerRequest), r.AllocObjectsPerRequest))
	}
	if r.GC != nil {
		add("GC", GCShareText(r.GC))
	}
	if len(rows) > 0 {
		mdTable(b, "lr", []string{"", "measured"}, rows)
	}
}

func mdSLO(b *strings.Builder, r *runfmt.Run) {
	if r.Load == nil || len(r.Load.SLO) == 0 {
		return
	}
	var rows [][]string
	for _, c := range r.Load.SLO {
		result := markPass + " met"
		if !c.Pass {
			result = markFail + " missed"
		}
		rows = append(rows, []string{mdCode(c.Objective), mdText(c.Metric + "=" + FormatSLOValue(c)), result})
	}
	b.WriteString("**SLO**\n\n")
	mdTable(b, "lrl", []string{"objective", "measured", "result"}, rows)
}

func mdHot(b *strings.Builder, hot []runfmt.HotFunc, n int) {
	if n == 0 || len(hot) == 0 {
		return
	}
	var rows [][]string
	for i, h := range hot {
		if i == n {
			break
		}
		name := mdCode(h.Function)
		if !h.UserCode {
			name += " (library)"
		}
		rows = append(rows, []string{name, mdText(units.FormatMicros(h.CPUUsPerRequest + h.AttributedUsReq))})
	}
	b.WriteString("**Where the CPU goes** (per request; user code counts the library code it calls)\n\n")
	mdTable(b, "lr", []string{"function", "CPU per request"}, rows)
}

func mdFindings(b *strings.Builder, fs []runfmt.Finding, a *runfmt.Answer, n int) {
	if len(fs) == 0 {
		return
	}
	b.WriteString("**Findings**")
	if a != nil {
		b.WriteString(" (" + mdText(findingsOrder(a)) + ")")
	}
	b.WriteString("\n\n")
	for i := range fs {
		if i == n {
			fmt.Fprintf(b, "- and %d more in the run's report\n", len(fs)-n)
			break
		}
		f := &fs[i]
		line := "- **" + proseMarkdown(prose.Wording(f).Title) + "**"
		if names := f.Names(); len(names) > 0 {
			var codes []string
			for _, fn := range names[:min(len(names), 3)] {
				codes = append(codes, mdCode(fn))
			}
			line += " in " + strings.Join(codes, ", ")
		}
		if a != nil {
			if p := payoffText(f, a); p != "" {
				line += ": " + mdText(p)
			}
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
}

func mdRunFiles(b *strings.Builder, r *runfmt.Run, dir string, opt MarkdownOptions) {
	var parts []string
	switch {
	case opt.RunsURL != "":
		parts = append(parts, "["+mdText("report.html")+"]("+strings.TrimSuffix(opt.RunsURL, "/")+"/"+r.ID+"/report.html)")
	case dir != "":
		parts = append(parts, "run directory "+mdCode(dir)+" (report.html, run.json, profiles/)")
	}
	if opt.JobURL != "" {
		parts = append(parts, "[CI job and its artifacts]("+opt.JobURL+")")
	}
	if len(parts) > 0 {
		b.WriteString(strings.Join(parts, " · ") + "\n")
	}
}
