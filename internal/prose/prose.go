package prose

import (
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// SpanKind says what a span of prose is.
type SpanKind uint8

// The kinds of span.
const (
	SpanText   SpanKind = iota // words
	SpanCode                   // a function, a call, a setting to type
	SpanFigure                 // a quantity, formatted
)

// Span is a piece of prose.
type Span struct {
	Kind SpanKind
	Text string
}

// Prose is a finding's sentence (or sentences) as spans.
type Prose []Span

// Text is the prose as plain text.
func (p Prose) Text() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString(s.Text)
	}
	return b.String()
}

// say appends format with each "%v" replaced by the next span: words,
// code and figures, never a number formatted by hand.
func (p *Prose) say(format string, args ...Span) {
	for i := 0; ; i++ {
		j := strings.Index(format, "%v")
		if j < 0 || i == len(args) {
			p.words(format)
			return
		}
		p.words(format[:j])
		*p = append(*p, args[i])
		format = format[j+2:]
	}
}

func (p *Prose) words(s string) {
	if s != "" {
		*p = append(*p, Span{SpanText, s})
	}
}

// join appends n items, separated by sep, each written by item.
func (p *Prose) join(sep string, n int, item func(i int)) {
	for i := range n {
		if i > 0 {
			p.words(sep)
		}
		item(i)
	}
}

// code is a function or call name as a span.
func code(s string) Span { return Span{SpanCode, s} }

// word is a setting or a name read from the run, as words.
func word(s string) Span { return Span{SpanText, s} }

// fig formats v, a value of figure f, by f's measure.
func fig(f runfmt.Figure, v float64) Span { return Span{SpanFigure, FormatFigure(f, v)} }

// FormatFigure formats v, a value of figure f, as every finding's words
// do: by f's measure, through package units.
func FormatFigure(f runfmt.Figure, v float64) string { return format(f.Measure(), v) }

// quantity formats v in measure m, for a figure of a breakdown.
func quantity(m runfmt.Measure, v float64) Span { return Span{SpanFigure, format(m, v)} }

// format formats a value of a measure through package units.
func format(m runfmt.Measure, v float64) string {
	switch m {
	case runfmt.MeasureShare:
		return units.FormatShare(v)
	case runfmt.MeasureMicros:
		return units.FormatMicros(v)
	case runfmt.MeasureSeconds:
		return units.FormatSeconds(v)
	case runfmt.MeasureBytes:
		return units.FormatBytes(v)
	case runfmt.MeasureBytesPS:
		return units.FormatBytes(v) + "/s"
	}
	return units.Sig(v) // cores, counts and rates: the words say what
}

// capitalize starts s with a capital letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
