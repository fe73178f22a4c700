package prose

import "perflab/internal/runfmt"

// categories are the words of the findings of library work by category
// (package findings' categories: each names its kind and the advice key
// the words are found by): the work's label in a finding's detail (""
// for the kind's own name) and the advice.
var categories = []struct {
	kind          runfmt.FindingKind
	key           runfmt.Advice
	label, advice string
}{
	{runfmt.FindingFormatting, runfmt.AdviceBuildStrings, "", "build the string with strconv.Append*/strings.Builder or precompute it; fmt with %v walks values by reflection"},
	{runfmt.FindingEncoding, runfmt.AdviceReuseEncoders, "", "reuse encoders and buffers, encode only what changed, or cache the encoded bytes"},
	{runfmt.FindingEncoding, runfmt.AdviceCacheRendered, "template execution", "cache the rendered output when its inputs rarely change"},
	{runfmt.FindingCompression, runfmt.AdviceCompressLess, "", "lower the compression level, skip small or already-compressed bodies, or cache compressed output"},
	{runfmt.FindingRepeatedWork, runfmt.AdviceCacheReads, "database/file reads", "read once and cache the result, or query only what changed"},
	{runfmt.FindingRegexp, runfmt.AdviceCompileOnce, "regular expressions", "compile once outside the handler, or use strings functions for fixed patterns"},
	{runfmt.FindingReflection, runfmt.AdviceAvoidReflect, "", "avoid reflect on the request path: use concrete types or generated code"},
}

// cacheAdvice follows a category's advice when its work repeats per
// request.
const cacheAdvice = " If the result is the same for many requests (data that changes once a second, a rendered page, an image), compute it once and serve the cached result."

// categoryWords word library work dominating under a user function, by
// its category's kind, and work repeated per request (whose result a
// cache could serve: the rule says which categories' can be); a
// category's advice key names it in a finding's data.
func categoryWords() words {
	kinds := map[runfmt.FindingKind]wording{}
	add := func(k runfmt.FindingKind, key runfmt.Advice, advice string, title func(view, *Prose)) {
		w, ok := kinds[k]
		if !ok {
			w = wording{title: title, detail: categoryDetail, advice: advices{}}
		}
		w.advice[key] = fixed(advice)
		kinds[k] = w
	}
	for _, c := range categories {
		advice := capitalize(c.advice) + "."
		if c.kind != runfmt.FindingRepeatedWork { // reads are repeated work whatever their share
			add(c.kind, c.key, advice, categoryTitle)
		}
		add(runfmt.FindingRepeatedWork, c.key, advice+cacheAdvice, repeatedTitle)
	}
	return words{kinds: kinds}
}

// "fmt.Sprintf under main.render: 41% of CPU, 380.0 µs/request"
func categoryTitle(v view, p *Prose) {
	p.say("%v under %v: ", code(v.funcs(runfmt.RoleEntry)[0].Function), code(v.culprit().Function))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
}

// "main.render repeats image/png.Encode on every request: 41% of CPU, ..."
func repeatedTitle(v view, p *Prose) {
	p.say("%v repeats %v on every request: ", code(v.culprit().Function), code(v.funcs(runfmt.RoleEntry)[0].Function))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
}

// "main.render spends 41% of CPU, 380.0 µs/request in formatting
// (fmt.Sprintf 38%, fmt.Fprintf 3%)."
func categoryDetail(v view, p *Prose) {
	p.say("%v spends ", code(v.culprit().Function))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
	p.say(" in %v (", word(categoryLabel(v.f.Advice)))
	es := v.funcs(runfmt.RoleEntry)
	p.join(", ", len(es), func(i int) { p.say("%v %v", code(es[i].Function), efig(es[i], runfmt.FigShare)) })
	p.words(").")
	if pkg := v.culprit().Package; pkg != "" {
		p.say(" The cost is library %v under your %v (%v): not code you can change, so change how %v calls it.",
			code(pkg), code(short(v.culprit())), v.fig(runfmt.FigLibraryShare), code(short(v.culprit())))
	}
}

// categoryLabel names the work of the category an advice key belongs to.
func categoryLabel(key runfmt.Advice) string {
	for _, c := range categories {
		if c.key == key {
			if c.label == "" {
				return string(c.kind)
			}
			return c.label
		}
	}
	return "library code"
}
