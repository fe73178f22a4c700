package report

import (
	"html"
	"html/template"
	"path"
	"strconv"
	"strings"

	"perflab/internal/funcname"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// A finding is data (runfmt.Finding); package prose words it as prose
// whose spans are words, code and figures (already formatted through
// package units). These render the prose for the terminal, markdown and
// HTML: the same figures, each writer its own format.

// proseText is prose as plain text.
func proseText(p prose.Prose) string { return p.Text() }

// proseMarkdown is prose as GitHub-flavoured markdown on one line: code
// as code spans, the rest escaped (see mdText).
func proseMarkdown(p prose.Prose) string {
	var b strings.Builder
	for _, s := range p {
		if s.Kind == prose.SpanCode {
			b.WriteString(mdCode(s.Text))
		} else {
			mdEscape(&b, strings.ReplaceAll(s.Text, "\n", " "))
		}
	}
	return b.String()
}

// proseHTML is prose as HTML: code in <code>, figures in <span
// class="fig">, everything escaped.
func proseHTML(p prose.Prose) template.HTML {
	var b strings.Builder
	for _, s := range p {
		t := html.EscapeString(s.Text)
		switch s.Kind {
		case prose.SpanCode:
			b.WriteString("<code>" + t + "</code>")
		case prose.SpanFigure:
			b.WriteString(`<span class="fig">` + t + "</span>")
		default:
			b.WriteString(t)
		}
	}
	return template.HTML(b.String())
}

// FindingName names a finding in a few words, for a headline: its kind,
// its culprit (with the library call it spends its cost in: the library
// function holding it where one is named, else the entry) and its
// costliest line: "encoding in demo.render (image/png.Encode) at
// render.go:104". A finding without a culprit reads as its title.
func FindingName(f runfmt.Finding) string {
	c, ok := f.Culprit()
	if !ok {
		return FindingTitle(f)
	}
	s := string(f.Kind) + " in " + funcname.Label(c.Function, c.File)
	callee := ""
	for _, e := range f.Evidence.Functions {
		switch {
		case e.Role == runfmt.RoleLibraryFunc:
			callee = e.Function
		case e.Role == runfmt.RoleEntry && callee == "":
			callee = e.Function
		}
	}
	if callee != "" {
		s += " (" + callee + ")"
	}
	if len(f.Lines) > 0 {
		s += " at " + path.Base(f.Lines[0].File) + ":" + strconv.FormatInt(f.Lines[0].Line, 10)
	}
	return s
}

// FindingTitle is a finding's title as plain text (the UI's list of runs).
func FindingTitle(f runfmt.Finding) string { return proseText(prose.Wording(&f).Title) }

// findingCost is the cost a finding is ranked by: its CPU, its wait or its
// bytes per request, formatted as its words format it ("140.0 µs"), with
// what it is (" CPU/request"); "" without one.
func findingCost(f *runfmt.Finding) (figure, what string) {
	for _, c := range []struct {
		fig  runfmt.Figure
		what string
	}{{runfmt.FigCPUPerRequest, " CPU/request"}, {runfmt.FigWaitPerRequest, " waited/request"}, {runfmt.FigBytesPerRequest, "/request"}} {
		if v := f.Figures[c.fig]; v > 0 {
			return prose.FormatFigure(c.fig, v), c.what
		}
	}
	return "", ""
}

// waits says a finding is about time off a CPU: its links lead to the
// off-CPU flame graph.
func waits(f *runfmt.Finding) bool {
	return f.Figures[runfmt.FigWaitPerRequest] > 0 && f.Figures[runfmt.FigCPUPerRequest] == 0
}
