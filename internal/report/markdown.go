package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// MarkdownOptions say where a markdown summary's links point.
type MarkdownOptions struct {
	// RunsURL, when set, is where the run directories are published (a CI
	// artifact, a web server): each run links to RunsURL/ID/report.html.
	RunsURL string
	// RunsDir is the local directory of the runs, named when there is no
	// RunsURL.
	RunsDir string
	// JobURL links to the CI job that ran perflab (its artifacts).
	JobURL string
	// Page is the comparison page written with --html, if any.
	Page string
	// Limit caps the size in bytes; 0 is MarkdownLimit.
	Limit int
}

// WriteCompareMarkdown writes a comparison (compare, ab or sweep) as a
// GitHub-flavoured markdown summary for a pull request comment or a CI
// job's summary: the verdict in one line (✅, ❌ or ⚠️), the metric table
// with benchstat's "~", the functions whose cost per request changed most,
// the --fail-on checks, the warnings and links to the artifacts — under
// opt.Limit bytes (fewer rows when it would not fit).
func WriteCompareMarkdown(w io.Writer, c *runfmt.Comparison, opt MarkdownOptions) error {
	return writeFitted(w, opt.Limit, 4, func(level int) string {
		var b strings.Builder
		b.WriteString("### " + compareHeadline(c) + "\n\n")
		if c.Env != "" {
			mdSweep(&b, c)
		} else {
			mdGroups(&b, c)
			mdMetrics(&b, c)
			mdPredictions(&b, c.Predictions)
			rows := []int{FunctionRows, 3, 1, 0}[level]
			mdFunctions(&b, c.Functions, runfmt.ProfileCPU, "CPU per "+perUnit(c)+" by function", rows)
			mdFunctions(&b, c.Functions, runfmt.ProfileAllocs, "Allocations per "+perUnit(c)+" by function", rows)
		}
		mdThresholds(&b, c.Thresholds)
		mdWarnings(&b, c.Warnings, level < 3)
		mdArtifacts(&b, c, opt)
		return b.String()
	})
}

// compareHeadline is the one-line verdict: a regression with the rule
// crossed and where it grew; else the outcome (better, worse, both, no
// significant change) with the changes that moved most, the rules held,
// and what made the measurement doubtful. Only a rule too few runs could
// check makes it "not conclusive".
func compareHeadline(c *runfmt.Comparison) string {
	status, reasons := verdictOf(c.Verdict)
	switch {
	case status == runfmt.VerdictFail:
		line := markFail + " **Regression**: " + mdText(strings.Join(c.Failed, ", "))
		if worst := worstFailed(c); worst != nil {
			line += fmt.Sprintf(" — %s %s", mdText(metricTitle(worst.Name)), mdText(FormatMetricDelta(*worst)))
		}
		if f := topLoser(c.Functions, runfmt.ProfileCPU); f != nil && c.Env == "" {
			line += fmt.Sprintf(", most in %s: %s per %s", mdCode(f.Function), mdText(cmpCostDelta(*f)), perUnit(c))
		}
		return line
	case status == runfmt.VerdictWarn && tooFewToCheck(c):
		return notConclusive(reasons) + changesSuffix(c)
	}
	line := outcome(c)
	if len(c.Thresholds) > 0 {
		var rules []string
		for _, t := range c.Thresholds {
			rules = append(rules, t.Rule)
		}
		line += " — within " + mdText(strings.Join(cmpUniq(rules), ", "))
	}
	if status == runfmt.VerdictWarn {
		line += " · " + markWarn + " " + mdText(strings.Join(reasons, "; "))
	}
	return line
}

// headlineChanges is how many changes a headline names, or more when more
// of them are metrics it always names (see guarded).
const headlineChanges = 3

// outcome is a comparison's result in words, with the metrics that moved
// most. A change of 0 (equal medians the rank test still tells apart) is
// neither better nor worse.
func outcome(c *runfmt.Comparison) string {
	var better, worse []runfmt.MetricComparison
	for _, m := range c.Metrics {
		switch {
		case !m.Significant || m.TooFew || m.Base.Median == 0 || m.DeltaPct == 0:
		case direction(m.DeltaPct, m.Better) == "better":
			better = append(better, m)
		default:
			worse = append(worse, m)
		}
	}
	keep := guarded(c)
	switch {
	case len(better) > 0 && len(worse) == 0:
		return markPass + " **Better**: " + mdText(mostMoved(better, keep))
	case len(worse) > 0 && len(better) == 0:
		return markWarn + " **Worse**: " + mdText(mostMoved(worse, keep))
	case len(worse) > 0:
		return markWarn + " **Changed**: better " + mdText(mostMoved(better, keep)) + "; worse " + mdText(mostMoved(worse, keep))
	}
	return markPass + " **No significant change**"
}

// guarded are the metrics a headline always names when they changed: the
// ones a --fail-on rule guards, and the CPU per request, what perflab
// measures first.
func guarded(c *runfmt.Comparison) map[runfmt.MetricName]bool {
	keep := map[runfmt.MetricName]bool{runfmt.MetricCPU: true}
	for _, t := range c.Thresholds {
		keep[t.Metric] = true
	}
	return keep
}

// mostMoved names the metrics in the table's order (throughput, latency,
// CPU first): every one of keep, and the first others until
// headlineChanges are named; "N more" for the rest.
func mostMoved(ms []runfmt.MetricComparison, keep map[runfmt.MetricName]bool) string {
	others := headlineChanges
	for _, m := range ms {
		if keep[m.Name] {
			others--
		}
	}
	var names []string
	more := 0
	for _, m := range ms {
		switch {
		case keep[m.Name]:
		case others > 0:
			others--
		default:
			more++
			continue
		}
		names = append(names, metricTitle(m.Name)+" "+FormatChange(m.DeltaPct))
	}
	if more > 0 {
		names = append(names, fmt.Sprintf("%d more", more))
	}
	return strings.Join(names, ", ")
}

// tooFewToCheck says whether a --fail-on rule, or with none every metric,
// had too few runs to tell.
func tooFewToCheck(c *runfmt.Comparison) bool {
	if len(c.Thresholds) == 0 {
		return len(c.Metrics) > 0 && !slices.ContainsFunc(c.Metrics, func(m runfmt.MetricComparison) bool { return !m.TooFew })
	}
	return slices.ContainsFunc(c.Thresholds, func(t runfmt.ThresholdCheck) bool { return t.TooFew })
}

// verdictOf is a verdict's status and reasons; a comparison without one
// passed.
func verdictOf(v *runfmt.Verdict) (status string, reasons []string) {
	if v == nil {
		return runfmt.VerdictPass, nil
	}
	return v.Status, v.Reasons
}

// notConclusive is the headline of a verdict that could not tell, with
// its reasons.
func notConclusive(reasons []string) string {
	return markWarn + " **Not conclusive**: " + mdText(strings.Join(reasons, "; "))
}

func changesSuffix(c *runfmt.Comparison) string {
	if changes := significantChanges(c); len(changes) > 0 {
		return " — significant: " + mdText(strings.Join(changes, ", "))
	}
	return " — no significant change"
}

// significantChanges names the metrics that changed significantly.
func significantChanges(c *runfmt.Comparison) []string {
	var out []string
	for _, m := range c.Metrics {
		if m.Significant && !m.TooFew {
			out = append(out, metricTitle(m.Name)+" "+FormatMetricDelta(m))
		}
	}
	return out
}

// worstFailed is the metric of the violated rule that moved most.
func worstFailed(c *runfmt.Comparison) *runfmt.MetricComparison {
	var worst *runfmt.MetricComparison
	for _, t := range c.Thresholds {
		if !t.Violated || t.Step != "" {
			continue
		}
		for i := range c.Metrics {
			m := &c.Metrics[i]
			if m.Name == t.Metric && (worst == nil || math.Abs(m.DeltaPct) > math.Abs(worst.DeltaPct)) {
				worst = m
			}
		}
	}
	return worst
}

// topLoser is the significant function whose cost per request grew most,
// user code first.
func topLoser(fs []runfmt.FunctionDelta, kind runfmt.ProfileType) *runfmt.FunctionDelta {
	var best *runfmt.FunctionDelta
	for i := range fs {
		f := &fs[i]
		if f.Profile != kind || f.Delta <= 0 || !f.Significant {
			continue
		}
		if best == nil || f.UserCode && !best.UserCode || f.UserCode == best.UserCode && f.Delta > best.Delta {
			best = f
		}
	}
	return best
}

func mdGroups(b *strings.Builder, c *runfmt.Comparison) {
	var parts []string
	for _, g := range []runfmt.Group{c.Base, c.New} {
		s := "**" + mdText(g.Label) + "**"
		if r := g.Revision; r != nil {
			s += " " + mdCode(r.Short()) + " " + mdText(r.Ref)
			if r.Subject != "" {
				s += " (" + mdText(r.Subject) + ")"
			}
		}
		s += fmt.Sprintf(": %d run%s", len(g.Runs), plural(len(g.Runs)))
		if g.Requests > 0 {
			s += fmt.Sprintf(", %.0f requests each", g.Requests)
		}
		parts = append(parts, s)
	}
	b.WriteString(strings.Join(parts, " · ") + "\n\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func mdMetrics(b *strings.Builder, c *runfmt.Comparison) {
	var rows [][]string
	for _, m := range c.Metrics {
		delta := mdText(FormatMetricDelta(m))
		if m.Significant && !m.TooFew {
			delta = "**" + delta + "**"
		}
		rows = append(rows, []string{mdText(metricTitle(m.Name)), mdText(FormatSummary(m.Base, m.Unit)),
			mdText(FormatSummary(m.New, m.Unit)), delta, mdText(strings.Trim(cmpPN(m), "()"))})
	}
	mdTable(b, "lrrrl", []string{"metric", mdText(c.Base.Label), mdText(c.New.Label), "delta", ""}, rows)
	if note := intervalNote(c); note != "" {
		b.WriteString("_" + mdText(upperFirst(note)) + "._\n\n")
	}
}

// mdFunctions lists the n functions of one profile kind whose cost per
// request grew most, then the n that shrank most.
func mdFunctions(b *strings.Builder, fs []runfmt.FunctionDelta, kind runfmt.ProfileType, title string, n int) {
	if n == 0 {
		return
	}
	var losers, gainers [][]string
	for _, f := range significantFirst(fs) {
		if f.Profile != kind {
			continue
		}
		name := mdCode(f.Function)
		if !f.UserCode {
			name += " (library)"
		}
		row := []string{name, mdText(cmpCost(f.Base, f.Unit)), mdText(cmpCost(f.New, f.Unit)), mdText(cmpCostDelta(f)), mdText(cmpFuncP(f))}
		switch {
		case f.Delta > 0 && len(losers) < n:
			losers = append(losers, row)
		case f.Delta < 0 && len(gainers) < n:
			gainers = append(gainers, row)
		}
	}
	if len(losers)+len(gainers) == 0 {
		return
	}
	b.WriteString("**" + mdText(title) + "** (user code counts the library code it calls)\n\n")
	mdTable(b, "lrrrl", []string{"function", "base", "new", "delta", ""}, append(losers, gainers...))
}

func mdThresholds(b *strings.Builder, ths []runfmt.ThresholdCheck) {
	if len(ths) == 0 {
		return
	}
	var rows [][]string
	for _, t := range ths {
		rule := mdCode(t.Rule)
		if t.Step != "" {
			rule = mdText(t.Step) + " " + rule
		}
		change, result := pctChange(t.DeltaPct), markPass+" passed"
		switch {
		case !t.Measured:
			change, result = "not measured", markWarn+" not measured"
		case t.TooFew:
			change, result = change+" (too few runs)", markWarn+" too few runs to tell"
		case !t.Significant:
			change += " (~, not significant)"
		}
		if t.Violated {
			result = markFail + " failed"
		}
		rows = append(rows, []string{rule, mdText(change), result})
	}
	b.WriteString("**--fail-on**\n\n")
	mdTable(b, "lrl", []string{"rule", "change", "result"}, rows)
}

func mdWarnings(b *strings.Builder, ws []string, all bool) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Warnings (%d)</summary>\n\n", len(ws))
	for i, w := range ws {
		if !all && i == 5 {
			fmt.Fprintf(b, "- and %d more\n", len(ws)-5)
			break
		}
		b.WriteString("- " + mdText(w) + "\n")
	}
	b.WriteString("\n</details>\n\n")
}

// mdArtifacts links the runs, the comparison page and the CI job.
func mdArtifacts(b *strings.Builder, c *runfmt.Comparison, opt MarkdownOptions) {
	var parts []string
	groups := []runfmt.Group{c.Base, c.New}
	if c.Env != "" {
		groups = groups[:0]
		for i, s := range c.Comparisons {
			if i == 0 {
				groups = append(groups, s.Base)
			}
			groups = append(groups, s.New)
		}
	}
	for _, g := range groups {
		parts = append(parts, mdText(g.Label)+": "+runLinks(g.Runs, opt))
	}
	if opt.Page != "" {
		parts = append(parts, "comparison page "+mdCode(opt.Page))
	}
	if opt.JobURL != "" {
		parts = append(parts, "[CI job and its artifacts]("+opt.JobURL+")")
	}
	b.WriteString("Runs " + strings.Join(parts, " · "))
	if opt.RunsURL == "" && opt.RunsDir != "" {
		b.WriteString(" (in " + mdCode(opt.RunsDir) + ")")
	}
	b.WriteString("\n\n<sub>perflab · benchstat's method: medians ± 95% confidence interval, Mann–Whitney U; ~ no significant change, ? too few runs</sub>\n")
}

// runLinks names runs, linked to their reports when they are published.
func runLinks(ids []string, opt MarkdownOptions) string {
	var out []string
	for i, id := range ids {
		if i == 6 {
			out = append(out, fmt.Sprintf("and %d more", len(ids)-6))
			break
		}
		if opt.RunsURL != "" {
			out = append(out, "["+mdText(id)+"]("+strings.TrimSuffix(opt.RunsURL, "/")+"/"+id+"/report.html)")
		} else {
			out = append(out, mdCode(id))
		}
	}
	return strings.Join(out, ", ")
}

// mdSweep writes the sweep side by side, one row per value.
func mdSweep(b *strings.Builder, s *runfmt.Comparison) {
	head := []string{mdText(s.Env), "runs"}
	align := "lr"
	for _, m := range sweepMetrics {
		head = append(head, mdText(metricTitle(m)), "delta")
		align += "rr"
	}
	rows := sweepRows(s)
	for _, row := range rows {
		row[0] = mdCode(row[0])
		for i := 1; i < len(row); i++ {
			row[i] = mdText(row[i])
		}
	}
	mdTable(b, align, head, rows)
}
