package prose

import (
	"perflab/internal/funcname"
	"perflab/internal/runfmt"
)

// Words are how a finding reads: its title, and its detail ending in its
// advice; Advice is the advice alone (a page too short for the detail
// prints the title and the advice).
type Words struct {
	Title, Detail, Advice Prose
}

// Wording writes f's words from its data. A finding of a run of schema 3
// or older reads as it was stored.
func Wording(f *runfmt.Finding) Words {
	if f.Title != "" || f.Detail != "" {
		return Words{Title: Prose{word(f.Title)}, Detail: Prose{word(f.Detail)}}
	}
	w, ok := wordingFor(f)
	if !ok {
		return Words{Title: Prose{word(string(f.Kind))}}
	}
	v := view{f}
	var out Words
	w.title(v, &out.Title)
	w.detail(v, &out.Detail)
	if a, ok := w.advice[f.Advice]; ok {
		a(v, &out.Advice)
		if len(out.Detail) > 0 {
			out.Detail.words(" ")
		}
		out.Detail = append(out.Detail, out.Advice...)
	}
	return out
}

// words are how the findings of one rule of package findings read: the
// wording of each kind it finds, and variants for findings of a kind
// another rule words too, told apart by their advice (a batch program's
// wait for a CPU and its budget, beside a service's).
type words struct {
	kinds    map[runfmt.FindingKind]wording
	variants map[runfmt.Advice]wording
}

// rules are the words of package findings' rules, each in the file of
// its rule's name, in the order the rules apply.
var rules = []words{
	gcWords, categoryWords(), ownerWords, constructorWords, waitWords(), nPlusOneWords, networkStallWords, gomaxprocsWords, throttledWords, cpuBoundWords, schedulerWords, contentionWords, spinWaitWords,
	offCPUWords, goroutineWords, memoryWords, stuckWords, batchWords, serialPhaseWords, startupWords, oomWords,
}

// wording is how findings of one kind read, written from their data
// only: a title, a detail, and the words of each advice they give.
type wording struct {
	title, detail func(v view, p *Prose)
	advice        advices
}

// advices are the words of each advice a kind of finding gives.
type advices = map[runfmt.Advice]func(v view, p *Prose)

// oneKind is the words of a rule that finds one kind of finding.
func oneKind(k runfmt.FindingKind, title, detail func(view, *Prose), advice advices) words {
	return words{kinds: map[runfmt.FindingKind]wording{k: {title: title, detail: detail, advice: advice}}}
}

// fixed is advice without figures.
func fixed(s string) func(view, *Prose) { return func(_ view, p *Prose) { p.words(s) } }

// wordingFor is the wording of f: its advice's variant, when a rule has
// one, else its kind's.
func wordingFor(f *runfmt.Finding) (wording, bool) {
	for _, r := range rules {
		if w, ok := r.variants[f.Advice]; ok {
			return w, true
		}
	}
	return wordingOf(f.Kind)
}

// wordingOf is the wording of a kind of finding.
func wordingOf(k runfmt.FindingKind) (wording, bool) {
	for _, r := range rules {
		if w, ok := r.kinds[k]; ok {
			return w, true
		}
	}
	return wording{}, false
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

// label names a function with its file for Python and Ruby, short its
// name without its package for a list read after the full one.
func label(e runfmt.FuncEvidence) string { return funcname.Label(e.Function, e.File) }
func short(e runfmt.FuncEvidence) string { return funcname.Short(e.Function, e.File) }
