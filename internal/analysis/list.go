package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// ListOptions selects what List shows.
type ListOptions struct {
	// SampleIndex selects the sample type as in TopOptions.
	SampleIndex string
	// Requests, when > 0, adds per-request figures.
	Requests int64
	// Scale multiplies the per-request figures, as TopOptions.Scale.
	Scale float64
	// Callees is how many of the costliest lines of the functions called
	// to show under each function; 0 means 10, a negative value none.
	Callees int
	// Sources finds the source files; nil reads them at their recorded
	// paths.
	Sources *Sources
}

// Listing is what List found: every line of the functions matching a
// regexp with its flat and cumulative cost, as pprof's list prints them,
// and the costliest lines of the functions they call.
type Listing struct {
	SampleType, Unit string
	Total, Requests  int64
	// Measured is the part of Total that is perflab's own measuring (a
	// stack with a frame of it, see measuring.go): in no function, as in
	// a top table.
	Measured int64
	// Scale is what the per-request figures were multiplied by.
	Scale float64
	// TimeNanos is when the profile was taken (0 if unknown): sources
	// modified later may not be what ran.
	TimeNanos int64
	// NoLines says the profile has no line numbers: Funcs carry
	// function-level costs and callee functions only.
	NoLines  bool
	Funcs    []ListedFunc
	Comments []string
}

// ListedFunc is one function of a listing.
type ListedFunc struct {
	Name, File string
	// Flat and Cum are the function's costs (cum counted once per stack).
	Flat, Cum int64
	// Lines are the lines shown, in order: the function's source from its
	// first line to its last sampled line when the source was read, else
	// the sampled lines only. Gaps in a long function are marked by a
	// ListedLine with Line 0.
	Lines []ListedLine
	// Source is the file read; its Err says why there is no source.
	Source *SourceFile
	// Changed says some sampled lines no longer match the source (see
	// ListedLine.Mismatch); Modified that the file changed after the
	// profile was taken.
	Changed, Modified bool
	// EndLinesOnly says every sampled line only closes a Ruby method or
	// block: the profiler reported frames at their method's last line
	// (rbspy with Ruby 3.1), so the per-line costs say nothing.
	EndLinesOnly bool
	// Calls are the calls it makes, by cumulative cost: from which of its
	// lines to which function.
	Calls []Call
	// Callees are the lines of the functions it calls that cost most
	// (by flat cost in the stacks through this function).
	Callees []CalleeLine
}

// Call is a listed function's calls from one line to one function (also
// as `perflab list --json` prints it, as are ListedLine and CalleeLine).
type Call struct {
	Line     int64  `json:"line"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Cum      int64  `json:"cum"`
}

// ListedLine is one source line of a listed function.
type ListedLine struct {
	Line int64  `json:"line"`
	Text string `json:"text,omitempty"`
	Flat int64  `json:"flat"`
	Cum  int64  `json:"cum"`
	// Mismatch says the source line is not in the function any more (or
	// does not exist): the file changed since the binary was built.
	Mismatch bool `json:"mismatch,omitempty"`
}

// CalleeLine is a line of a called function, with its cost in the stacks
// through the listed function.
type CalleeLine struct {
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int64  `json:"line"`
	Text     string `json:"text,omitempty"`
	Flat     int64  `json:"flat"`
	Cum      int64  `json:"cum"`
}

// NoMatchError is List's error when the regexp matches no function; Near
// lists the functions whose names come closest.
type NoMatchError struct {
	Pattern string
	Near    []string
}

func (e *NoMatchError) Error() string {
	msg := fmt.Sprintf("no function matches %q", e.Pattern)
	if len(e.Near) > 0 {
		msg += "; near names: " + strings.Join(e.Near, ", ")
	}
	return msg
}

// maxListedFuncs bounds a listing: a regexp matching hundreds of functions
// lists the costliest.
const maxListedFuncs = 50

// ListFile lists the functions of the profile file at path whose names
// match pattern, without building a *profile.Profile.
func ListFile(path, pattern string, opt ListOptions) (*Listing, error) {
	s, err := stacks.ReadFile(path, true)
	if err != nil {
		return nil, err
	}
	return listOf(s, pattern, opt)
}

// listGroup is one matched function: its line entries in s.funcs.
type listGroup struct {
	name, file string
	entries    []int32
	flat, cum  int64
	calleeFlat map[int32]int64
	calleeCum  map[int32]int64
	// lineFlat and lineCum are per source line (one line entry each).
	lineFlat, lineCum map[int64]int64
	// calls is the cost of each direct call, by (call line, callee entry).
	calls map[callKey]int64
}

type callKey struct {
	line   int64
	callee int32
}

func listOf(s *stacks.Set, pattern string, opt ListOptions) (*Listing, error) {
	rx, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", pattern, err)
	}
	vi, err := s.SampleIndex(opt.SampleIndex)
	if err != nil {
		return nil, err
	}
	groups, groupOf := matchGroups(s, rx)
	if len(groups) == 0 {
		return nil, &NoMatchError{Pattern: pattern, Near: nearNames(s, vi, pattern, 5)}
	}
	total, measured := listCosts(s, vi, groups, groupOf)
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].cum > groups[j].cum })
	if len(groups) > maxListedFuncs {
		groups = groups[:maxListedFuncs]
	}
	l := &Listing{SampleType: s.SampleTypes[vi].Type, Unit: s.SampleTypes[vi].Unit, Total: total, Measured: measured,
		Requests: opt.Requests, Scale: opt.Scale, TimeNanos: s.TimeNanos, NoLines: !s.HasLines, Comments: s.Comments}
	src := opt.Sources
	if src == nil {
		src = &Sources{}
	}
	ncallees := opt.Callees
	if ncallees == 0 {
		ncallees = 10
	}
	for _, g := range groups {
		l.Funcs = append(l.Funcs, listFunc(s, g, src, l, ncallees))
	}
	return l, nil
}

// matchGroups finds the functions whose names match rx, grouping their line
// entries; groupOf maps an entry to its group (-1 for none).
func matchGroups(s *stacks.Set, rx *regexp.Regexp) ([]*listGroup, []int32) {
	groupOf := make([]int32, len(s.Funcs))
	byKey := map[string]int32{}
	var groups []*listGroup
	matched := map[string]bool{}
	for i, f := range s.Funcs {
		groupOf[i] = -1
		m, ok := matched[f.Name]
		if !ok {
			m = rx.MatchString(f.Name)
			matched[f.Name] = m
		}
		if !m {
			continue
		}
		key := f.Name + "\x00" + f.File
		g, ok := byKey[key]
		if !ok {
			g = int32(len(groups))
			byKey[key] = g
			groups = append(groups, &listGroup{name: f.Name, file: f.File, calleeFlat: map[int32]int64{}, calleeCum: map[int32]int64{},
				lineFlat: map[int64]int64{}, lineCum: map[int64]int64{}, calls: map[callKey]int64{}})
		}
		groups[g].entries = append(groups[g].entries, int32(i))
		groupOf[i] = g
	}
	return groups, groupOf
}

// listCosts fills each group's costs in one pass over the stacks and
// returns the profile's total and the part of it that is perflab's
// measuring, which no group's cost includes.
func listCosts(s *stacks.Set, vi int, groups []*listGroup, groupOf []int32) (total, measured int64) {
	outer := make([]int, len(groups)) // per group: its outermost frame in the stack, or -1
	seen := make([]int32, len(s.Funcs))
	measuring := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		seen[i] = -1
		measuring[i] = ownership.IsGoMeasuring(f.Name)
	}
	for si := 0; si < s.NumStacks(); si++ {
		v := s.Value(si, vi)
		total += v
		if v == 0 {
			continue
		}
		st := s.Stack(si)
		if slices.ContainsFunc(st, func(f int32) bool { return measuring[f] }) {
			measured += v
			continue
		}
		for g := range outer {
			outer[g] = -1
		}
		found := false
		for i, f := range st {
			g := groupOf[f]
			if g < 0 {
				continue
			}
			outer[g], found = i, true
			if i == 0 {
				groups[g].lineFlat[s.Funcs[f].Line] += v
			}
			if seen[f] != int32(si) {
				seen[f] = int32(si)
				groups[g].lineCum[s.Funcs[f].Line] += v
			}
		}
		if !found {
			continue
		}
		for g, o := range outer {
			if o < 0 {
				continue
			}
			grp := groups[g]
			grp.cum += v
			if groupOf[st[0]] == int32(g) {
				grp.flat += v
				continue
			}
			grp.calleeFlat[st[0]] += v
			grp.calls[callKey{s.Funcs[st[o]].Line, st[o-1]}] += v
			// Callees are counted once per stack: a mark of -2-g, which
			// no stack index and no other group uses.
			mark := int32(-2 - g)
			for _, f := range st[:o] {
				if groupOf[f] != int32(g) && seen[f] != mark {
					seen[f] = mark
					grp.calleeCum[f] += v
				}
			}
			for _, f := range st[:o] {
				if seen[f] == mark {
					seen[f] = -1
				}
			}
		}
	}
	return total, measured
}

// listFunc builds one function's listing.
func listFunc(s *stacks.Set, g *listGroup, src *Sources, l *Listing, ncallees int) ListedFunc {
	lf := ListedFunc{Name: g.name, File: g.file, Flat: g.flat, Cum: g.cum}
	flat, cum := g.lineFlat, g.lineCum
	var sampled []int64
	var start int64
	for ln := range cum {
		sampled = append(sampled, ln)
	}
	slices.Sort(sampled)
	for _, e := range g.entries {
		if st := s.Funcs[e].StartLine; st > 0 {
			start = st
		}
	}
	if !l.NoLines {
		lf.Source = src.File(g.file)
		if lf.Source.Err == nil && l.TimeNanos > 0 && lf.Source.ModTime.UnixNano() > l.TimeNanos {
			lf.Modified = true
		}
		lf.Lines = listedLines(lf.Source, g.name, start, sampled, flat, cum)
		// The function's recorded first line no longer declaring it means
		// the file changed above or in it: no sampled line can be trusted.
		if ok, known := lf.Source.DeclaredAt(g.name, start); known && !ok {
			for i := range lf.Lines {
				if _, isSampled := cum[lf.Lines[i].Line]; isSampled {
					lf.Lines[i].Mismatch = true
				}
			}
		}
		ends := 0
		for _, ln := range lf.Lines {
			lf.Changed = lf.Changed || ln.Mismatch
			if _, isSampled := cum[ln.Line]; isSampled && sourceLang(lf.Source.Path) == runfmt.RuntimeRuby && isRubyEnd(ln.Text) {
				ends++
			}
		}
		lf.EndLinesOnly = ends > 0 && ends == len(sampled)
	}
	if ncallees > 0 {
		lf.Calls = directCalls(s, g, ncallees)
		lf.Callees = calleeLines(s, g, src, ncallees)
	}
	return lf
}

// directCalls ranks a function's calls by cumulative cost, merging the
// lines of each callee.
func directCalls(s *stacks.Set, g *listGroup, n int) []Call {
	type key struct {
		line int64
		name string
	}
	agg := map[key]*Call{}
	for k, v := range g.calls {
		fi := s.Funcs[k.callee]
		c := agg[key{k.line, fi.Name}]
		if c == nil {
			c = &Call{Line: k.line, Function: fi.Name, File: fi.File}
			agg[key{k.line, fi.Name}] = c
		}
		c.Cum += v
	}
	out := make([]Call, 0, len(agg))
	for _, c := range agg {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cum != out[j].Cum {
			return out[i].Cum > out[j].Cum
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Function < out[j].Function
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// maxFullListing is the longest function listed in full; longer ones show
// their sampled lines with a little context.
const maxFullListing = 200

// listedLines lays out a function's lines: from its first line (or the
// enclosing definition of its first sampled line) to its last sampled line
// plus one, from the source when it was read.
func listedLines(src *SourceFile, fn string, start int64, sampled []int64, flat, cum map[int64]int64) []ListedLine {
	var out []ListedLine
	mk := func(n int64) ListedLine {
		ln := ListedLine{Line: n, Flat: flat[n], Cum: cum[n]}
		if src.Err == nil {
			ln.Text, _ = src.Line(n)
			if _, isSampled := cum[n]; isSampled {
				ok, known := src.Matches(fn, n)
				ln.Mismatch = known && !ok
			}
		}
		return ln
	}
	if len(sampled) == 0 {
		return nil
	}
	first, last := sampled[0], sampled[len(sampled)-1]
	if src.Err != nil || first <= 0 {
		for _, n := range sampled {
			out = append(out, mk(n))
		}
		return out
	}
	if start <= 0 || start > first {
		start = defLine(src, fn, first)
	}
	end := min(last+1, int64(len(src.Lines)))
	if end-start+1 <= maxFullListing {
		for n := start; n <= max(end, last); n++ {
			out = append(out, mk(n))
		}
		return out
	}
	// A long function: its sampled lines with two lines of context.
	const ctx = 2
	var prev int64
	for _, n := range sampled {
		lo := max(n-ctx, start, prev+1)
		if prev > 0 && lo > prev+1 {
			out = append(out, ListedLine{})
		}
		for k := lo; k <= n+ctx; k++ {
			out = append(out, mk(k))
			prev = k
		}
	}
	return out
}

// defLine returns the line of the definition enclosing line n, or n.
func defLine(src *SourceFile, fn string, n int64) int64 {
	lang := sourceLang(src.Path)
	want := defName(fn, lang)
	if want == "" || n > int64(len(src.Lines)) {
		return n
	}
	for i := n; i >= 1 && n-i < 2000; i-- {
		if name, _ := declName(src.Lines[i-1], lang); name == want {
			if lang == runfmt.RuntimeGo {
				return commentStart(src, i)
			}
			return i
		}
	}
	return n
}

// commentStart moves back over the doc comment above a Go declaration.
func commentStart(src *SourceFile, n int64) int64 {
	for n > 1 && strings.HasPrefix(strings.TrimSpace(src.Lines[n-2]), "//") && n > 1 {
		n--
	}
	return n
}

// calleeLines ranks the lines of called functions by their flat cost in the
// stacks through g (their cum breaks ties).
func calleeLines(s *stacks.Set, g *listGroup, src *Sources, n int) []CalleeLine {
	keys := make([]int32, 0, len(g.calleeFlat))
	for f, v := range g.calleeFlat {
		if v > 0 {
			keys = append(keys, f)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if g.calleeFlat[a] != g.calleeFlat[b] {
			return g.calleeFlat[a] > g.calleeFlat[b]
		}
		if g.calleeCum[a] != g.calleeCum[b] {
			return g.calleeCum[a] > g.calleeCum[b]
		}
		return a < b
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	out := make([]CalleeLine, len(keys))
	for i, f := range keys {
		fi := s.Funcs[f]
		out[i] = CalleeLine{Function: fi.Name, File: fi.File, Line: fi.Line, Flat: g.calleeFlat[f], Cum: g.calleeCum[f]}
		if fi.Line > 0 {
			if sf := src.File(fi.File); sf.Err == nil {
				out[i].Text, _ = sf.Line(fi.Line)
			}
		}
	}
	return out
}

// nearNames lists up to n function names close to pattern: those whose
// name contains it (or its letters, ignoring case), then those within a
// small edit distance of its last component, costliest first.
func nearNames(s *stacks.Set, vi int, pattern string, n int) []string {
	cost := map[string]int64{}
	for si := 0; si < s.NumStacks(); si++ {
		for _, f := range s.Stack(si) {
			cost[s.Funcs[f].Name] += s.Value(si, vi)
		}
	}
	pat := strings.ToLower(longestWord(pattern))
	type cand struct {
		name  string
		score int
	}
	var cands []cand
	for name := range cost {
		low := strings.ToLower(name)
		short := low[strings.LastIndexAny(low, "./#")+1:]
		switch {
		case pat == "":
		case strings.Contains(low, pat):
			cands = append(cands, cand{name, 0})
		default:
			limit := max(1, len(pat)/4)
			if d := editDistance(short, pat, limit); d <= limit {
				cands = append(cands, cand{name, d})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score < b.score
		}
		if cost[a.name] != cost[b.name] {
			return cost[a.name] > cost[b.name]
		}
		return a.name < b.name
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// longestWord is the longest run of letters, digits and _ in a pattern:
// the name a user meant ("main\\.logReq.*" -> "logReq").
func longestWord(p string) string {
	best := ""
	for _, w := range strings.FieldsFunc(p, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit+1 once it
// must exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
			best = min(best, c)
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
