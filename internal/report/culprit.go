package report

import (
	"fmt"
	"path"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// maxLineText bounds a source line quoted in a verdict.
const maxLineText = 80

// lineText words a culprit line the way the verdict prints it:
//
//	handlers.go:42  fmt.Println(doc)  — 1.31 ms/request, 95%
func lineText(l runfmt.SourceLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d", path.Base(l.File), l.Line)
	if t := l.Text; t != "" {
		b.WriteString("  " + units.Shorten(t, maxLineText))
	}
	b.WriteString("  —")
	if l.CostUsPerRequest > 0 {
		b.WriteString(" " + units.FormatMicros(l.CostUsPerRequest) + "/request,")
	}
	fmt.Fprintf(&b, " %s", units.FormatPct(l.Pct))
	if l.SourceChanged {
		b.WriteString(" (the source changed since the build: this may not be the line that ran)")
	}
	return b.String()
}

// lineShort is a source line's place and text, without its cost:
//
//	handlers.go:42  fmt.Println(doc)
func lineShort(l runfmt.SourceLine) string {
	s := fmt.Sprintf("%s:%d", path.Base(l.File), l.Line)
	if t := l.Text; t != "" {
		s += "  " + units.Shorten(t, maxLineText)
	}
	return s
}

// lineOfFinding is a finding's costliest line as the page prints it: its
// cost only when the line holds part of the finding's.
func lineOfFinding(l runfmt.SourceLine) string {
	if l.Pct >= 99.5 && !l.SourceChanged {
		return lineShort(l)
	}
	return lineText(l)
}

// lines prints culprit lines under a finding or a function.
func (p *printer) lines(ls []runfmt.SourceLine, indent string) {
	for _, l := range ls {
		p.f("%s%s\n", indent, lineText(l))
	}
}

// htmlLine is a block of culprit lines in report.html: one or more lines of
// one file whose surrounding source overlaps, shown as one snippet.
type htmlLine struct {
	Notes  []htmlNote
	Source []htmlSrc
}

// htmlNote says where a culprit line is and what it costs.
type htmlNote struct {
	Where, Cost string
	Changed     bool
}

// htmlSrc is one line of a source snippet; Cost is set on culprit lines.
type htmlSrc struct {
	N    int64
	Text string
	Hot  bool
	Cost string
}

func linesView(ls []runfmt.SourceLine) []htmlLine {
	var out []htmlLine
	var lastFile string
	var lastEnd int64
	for _, l := range ls {
		note := htmlNote{Where: fmt.Sprintf("%s:%d", l.File, l.Line), Changed: l.SourceChanged, Cost: units.FormatPct(l.Pct)}
		if l.CostUsPerRequest > 0 {
			note.Cost = units.FormatMicros(l.CostUsPerRequest) + "/request, " + note.Cost
		}
		src := l.Context
		start := l.ContextStart
		if len(src) == 0 && l.Text != "" {
			src, start = []string{l.Text}, l.Line
		}
		n := len(out)
		if n > 0 && l.File == lastFile && len(src) > 0 && start <= lastEnd+1 {
			// Overlapping or adjacent: extend the previous snippet.
			b := &out[n-1]
			b.Notes = append(b.Notes, note)
			for i, t := range src {
				ln := start + int64(i)
				if ln > lastEnd {
					b.Source = append(b.Source, htmlSrc{N: ln, Text: t})
					lastEnd = ln
				}
			}
			markHot(b.Source, l.Line, note.Cost)
			continue
		}
		b := htmlLine{Notes: []htmlNote{note}}
		for i, t := range src {
			b.Source = append(b.Source, htmlSrc{N: start + int64(i), Text: t})
		}
		markHot(b.Source, l.Line, note.Cost)
		out = append(out, b)
		lastFile, lastEnd = l.File, start+int64(len(src))-1
	}
	return out
}

// markHot highlights line n of a snippet with its cost.
func markHot(src []htmlSrc, n int64, cost string) {
	for i := range src {
		if src[i].N == n {
			src[i].Hot, src[i].Cost = true, cost
		}
	}
}
