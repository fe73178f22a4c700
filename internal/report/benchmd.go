package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// WriteBenchMarkdown writes a `perflab bench` run as a GitHub-flavoured
// markdown summary: a line per package, the table of each benchmark's
// units (median ± 95% confidence interval), and the user's costliest lines
// per benchmark, under opt.Limit bytes.
func WriteBenchMarkdown(w io.Writer, r *runfmt.Run, opt MarkdownOptions) error {
	return writeFitted(w, opt.Limit, 2, func(level int) string {
		var b strings.Builder
		b.WriteString("### " + benchHeadline(r) + "\n\n")
		if bn := r.Bench; bn != nil {
			mdBenchTable(&b, bn)
			if level == 0 {
				mdBenchLines(&b, bn)
			}
		}
		b.WriteString("Run " + runLinks([]string{r.ID}, opt))
		if opt.RunsURL == "" && opt.RunsDir != "" {
			b.WriteString(" (in " + mdCode(opt.RunsDir) + ")")
		}
		b.WriteString("\n\n<sub>perflab bench · medians ± 95% confidence interval over the timed runs; lines from profiles taken apart</sub>\n")
		return b.String()
	})
}

func benchHeadline(r *runfmt.Run) string {
	n := 0
	if r.Bench != nil {
		n = len(r.Bench.Benchmarks)
	}
	line := fmt.Sprintf("%s **%d benchmark%s**", markPass, n, plural(n))
	if r.Bench != nil {
		line += fmt.Sprintf(", %d runs of each", r.Bench.Count)
	}
	if r.Status != runfmt.StatusComplete {
		line = markWarn + " " + strings.TrimPrefix(line, markPass+" ") + " — " + mdText(r.Status+": "+r.PartialReason+DegradedText(r))
	}
	return line
}

func mdBenchTable(b *strings.Builder, bn *runfmt.Bench) {
	var cols []string
	for _, x := range bn.Benchmarks {
		for _, m := range x.Metrics {
			if !slices.Contains(cols, m.Unit) {
				cols = append(cols, m.Unit)
			}
		}
	}
	head := []string{"benchmark"}
	align := "l"
	for _, c := range cols {
		head, align = append(head, mdText(c)), align+"r"
	}
	var rows [][]string
	for _, x := range bn.Benchmarks {
		row := []string{mdCode(x.Name)}
		for _, c := range cols {
			cell := ""
			if m, ok := x.Metric(c); ok {
				cell = mdText(FormatBenchSummary(m.Summary, c))
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	mdTable(b, align, head, rows)
}

func mdBenchLines(b *strings.Builder, bn *runfmt.Bench) {
	var rows [][]string
	for _, x := range bn.Benchmarks {
		if x.CPU != nil {
			for _, l := range firstLines(x.CPU.Lines, 3) {
				rows = append(rows, []string{mdCode(x.Name), "CPU", mdText(units.FormatValue(l.PerOp, "ns") + "/op"), mdCode(BenchLineLabel(l))})
			}
		}
		if x.Allocs != nil {
			for _, l := range firstLines(x.Allocs.Lines, 3) {
				rows = append(rows, []string{mdCode(x.Name), "allocs", mdText(units.FormatBytes(l.PerOp) + ", " + units.Sig(l.ObjectsPerOp) + " allocs/op"), mdCode(BenchLineLabel(l))})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("**Your lines that cost** (each charged with the library code it calls)\n\n")
	mdTable(b, "llrl", []string{"benchmark", "profile", "per op", "line"}, rows)
}

func firstLines(ls []runfmt.BenchLine, n int) []runfmt.BenchLine {
	if len(ls) > n {
		return ls[:n]
	}
	return ls
}

// WriteBenchCompareMarkdown writes a comparison of two benchmark runs as a
// markdown summary: the verdict in one line, the table, the --fail-on
// checks and the warnings, under opt.Limit bytes.
func WriteBenchCompareMarkdown(w io.Writer, c *runfmt.BenchComparison, opt MarkdownOptions) error {
	return writeFitted(w, opt.Limit, 2, func(level int) string {
		var b strings.Builder
		b.WriteString("### " + benchCompareHeadline(c) + "\n\n")
		var sides []string
		for _, s := range []runfmt.BenchSide{c.Base, c.New} {
			sides = append(sides, "**"+mdText(s.Label)+"** "+mdText(benchSideText(s)))
		}
		b.WriteString(strings.Join(sides, " · ") + "\n\n")
		var rows [][]string
		for _, d := range c.Rows {
			if level > 0 && !d.Significant {
				continue
			}
			delta := mdText(FormatBenchDelta(d))
			if benchMoved(d) {
				delta = "**" + delta + "**"
			}
			rows = append(rows, []string{mdCode(d.Benchmark), mdText(d.Unit), mdText(FormatBenchSummary(d.Base, d.Unit)),
				mdText(FormatBenchSummary(d.New, d.Unit)), delta, mdText(strings.Trim(benchPN(d), "()"))})
		}
		mdTable(&b, "llrrrl", []string{"benchmark", "unit", mdText(c.Base.Label), mdText(c.New.Label), "delta", ""}, rows)
		mdBenchChecks(&b, c.Thresholds)
		mdWarnings(&b, c.Warnings, level == 0)
		b.WriteString("Runs " + runLinks([]string{c.Base.Run, c.New.Run}, opt))
		b.WriteString("\n\n<sub>perflab bench · benchstat's method: medians ± 95% confidence interval, Mann–Whitney U; ~ no significant change, ? too few runs</sub>\n")
		return b.String()
	})
}

func benchCompareHeadline(c *runfmt.BenchComparison) string {
	switch status, reasons := verdictOf(c.Verdict); status {
	case runfmt.VerdictFail:
		return markFail + " **Regression**: " + mdText(strings.Join(reasons, "; "))
	case runfmt.VerdictWarn:
		return notConclusive(reasons)
	}
	var changes []string
	for _, d := range c.Rows {
		if benchMoved(d) {
			changes = append(changes, d.Benchmark+" "+d.Unit+" "+FormatBenchDelta(d))
		}
	}
	if len(changes) == 0 {
		return markPass + " **No significant change**"
	}
	return markPass + " **Changed**: " + mdText(units.Shorten(strings.Join(changes, ", "), 300))
}

// benchMoved says whether a row's median moved significantly.
func benchMoved(d runfmt.BenchDelta) bool { return d.Significant && !d.TooFew && d.Delta != 0 }

func mdBenchChecks(b *strings.Builder, ths []runfmt.BenchCheck) {
	if len(ths) == 0 {
		return
	}
	var rows [][]string
	for _, t := range ths {
		result := markPass + " passed"
		switch {
		case t.Violated:
			result = markFail + " failed"
		case !t.Measured:
			result = markWarn + " not measured"
		case t.TooFew:
			result = markWarn + " too few runs to tell"
		}
		rows = append(rows, []string{mdCode(t.Rule), mdText(t.Benchmark), mdText(benchCheckChange(t)), result})
	}
	b.WriteString("**--fail-on**\n\n")
	mdTable(b, "llrl", []string{"rule", "benchmark", "change", "result"}, rows)
}

// BenchCases has one JUnit case per benchmark of a run, with its figures.
func BenchCases(r *runfmt.Run) []JUnitCase {
	var out []JUnitCase
	if r.Bench == nil {
		return out
	}
	for _, x := range r.Bench.Benchmarks {
		var parts []string
		for _, m := range x.Metrics {
			parts = append(parts, m.Unit+"="+FormatBenchSummary(m.Summary, m.Unit))
		}
		out = append(out, JUnitCase{Class: "perflab.bench", Name: x.Package + "." + x.Name, Detail: strings.Join(parts, " ")})
	}
	return out
}

// BenchCheckCases has one JUnit case per --fail-on rule and benchmark.
func BenchCheckCases(c *runfmt.BenchComparison) []JUnitCase {
	var out []JUnitCase
	for _, t := range c.Thresholds {
		jc := JUnitCase{Class: "perflab.fail-on", Name: strings.TrimSpace(t.Benchmark + " " + t.Rule),
			Detail: fmt.Sprintf("%s changed %s; base %s, new %s", t.Unit, benchCheckChange(t), c.Base.Run, c.New.Run)}
		out = append(out, jc.judged(checkOutcome{t.Violated, t.Measured, t.TooFew},
			fmt.Sprintf("regression: %s %s changed %s (significant), beyond %s", t.Benchmark, t.Unit, benchCheckChange(t), t.Rule),
			fmt.Sprintf("no benchmark measured %s", t.Unit)))
	}
	return out
}
