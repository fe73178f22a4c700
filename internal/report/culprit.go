package report

import (
	"fmt"
	"path"
	"strings"

	"perflab/internal/runfmt"
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
		if len(t) > maxLineText {
			t = t[:maxLineText-3] + "..."
		}
		b.WriteString("  " + t)
	}
	b.WriteString("  —")
	if l.CostUsPerRequest > 0 {
		b.WriteString(" " + FormatMicros(l.CostUsPerRequest) + "/request,")
	}
	fmt.Fprintf(&b, " %.0f%%", l.Pct)
	if l.SourceChanged {
		b.WriteString(" (the source changed since the build: this may not be the line that ran)")
	}
	return b.String()
}

// lines prints culprit lines under a finding or a function.
func (p *printer) lines(ls []runfmt.SourceLine, indent string) {
	for _, l := range ls {
		p.f("%s%s\n", indent, lineText(l))
	}
}

// htmlLine is a culprit line in report.html, with its source around it.
type htmlLine struct {
	Where, Cost string
	Changed     bool
	Source      []htmlSrc
}

// htmlSrc is one line of a source snippet.
type htmlSrc struct {
	N    int64
	Text string
	Hot  bool
}

func linesView(ls []runfmt.SourceLine) []htmlLine {
	var out []htmlLine
	for _, l := range ls {
		h := htmlLine{Where: fmt.Sprintf("%s:%d", l.File, l.Line), Changed: l.SourceChanged, Cost: fmt.Sprintf("%.0f%%", l.Pct)}
		if l.CostUsPerRequest > 0 {
			h.Cost = FormatMicros(l.CostUsPerRequest) + "/request, " + h.Cost
		}
		for i, t := range l.Context {
			n := l.ContextStart + int64(i)
			h.Source = append(h.Source, htmlSrc{N: n, Text: t, Hot: n == l.Line})
		}
		if len(h.Source) == 0 && l.Text != "" {
			h.Source = []htmlSrc{{N: l.Line, Text: l.Text, Hot: true}}
		}
		out = append(out, h)
	}
	return out
}
