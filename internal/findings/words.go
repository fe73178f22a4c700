package findings

import (
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// A finding is stored as data (runfmt.Finding); its words are written
// when it is shown, from that data only, by the wording of its kind. The
// words are Prose: spans of text, code (a function, a call) and figures,
// each figure formatted through package units by its measure. Package
// report renders the spans as plain text, markdown or HTML.

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

// view is a finding as its words read it.
type view struct{ f *runfmt.Finding }

// fig is the finding's figure f, formatted.
func (v view) fig(f runfmt.Figure) Span { return fig(f, v.f.Figures[f]) }

// has says the finding holds figure f.
func (v view) has(f runfmt.Figure) bool {
	_, ok := v.f.Figures[f]
	return ok
}

// val is the value of figure f (0 when the finding lacks it).
func (v view) val(f runfmt.Figure) float64 { return v.f.Figures[f] }

// set is setting s ("" when not set).
func (v view) set(s runfmt.Setting) string { return v.f.Settings[s] }

// funcs are the functions of the evidence in role r.
func (v view) funcs(r runfmt.Role) []runfmt.FuncEvidence {
	var out []runfmt.FuncEvidence
	for _, e := range v.f.Evidence.Functions {
		if e.Role == r {
			out = append(out, e)
		}
	}
	return out
}

// culprit is the function to change first.
func (v view) culprit() runfmt.FuncEvidence {
	e, _ := v.f.Culprit()
	return e
}

// efig is figure f of a function of the evidence, formatted.
func efig(e runfmt.FuncEvidence, f runfmt.Figure) Span { return fig(f, e.Figures[f]) }

// perRequest is a CPU cost: "41% of CPU, 380.0 µs/request" (without the
// time when the CPU per request is unknown).
func perRequest(p *Prose, share, us float64) {
	p.say("%v of CPU", fig(runfmt.FigShare, share))
	if us > 0 {
		p.say(", %v/request", fig(runfmt.FigCPUPerRequest, us))
	}
}

// capitalize starts s with a capital letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runtimeAdvice is one advice in the terms of each runtime: pre-fork
// Python and Ruby servers, node, a JVM, and the others.
type runtimeAdvice struct{ scripts, node, jvm, other runfmt.Advice }

func (a runtimeAdvice) of(rt runfmt.Runtime) runfmt.Advice {
	switch rt {
	case runfmt.RuntimePython, runfmt.RuntimeRuby:
		return a.scripts
	case runfmt.RuntimeNode:
		return a.node
	case runfmt.RuntimeJVM:
		return a.jvm
	}
	return a.other
}
