package analysis

import (
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/funcname"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// Culprit lines: the lines of a function its cost goes through. For each
// stack through the function, the cost is booked to the line of its
// outermost frame (where the call that led to the cost was made; in a
// recursion, the outermost call), so the lines' shares add up to the
// function's cost. A Ruby block's lines are its method's.

// Culprit-line thresholds.
const (
	culpritLinesMax     = 3    // lines kept per function
	culpritLineMinShare = 0.10 // of the function's cost, for lines after the first
	culpritContext      = 2    // source lines kept on each side, for reports
)

// lineCost is one line's share of a function's cost.
type lineCost struct {
	file  string
	line  int64
	share float64
}

// funcID names a function as the stack set tells functions apart: by
// name, and for a script's function also by its file (one app.js's
// "(anonymous)" is not the framework's).
type funcID struct{ name, file string }

// idOf is the id of the function named name in file.
func idOf(name, file string) funcID {
	if funcname.Interpreted(file) {
		return funcID{name, file}
	}
	return funcID{name: name}
}

// lookupFunc finds the function named name in file among m's keys: by
// its id, else by its name alone (a request that gave no file).
func lookupFunc[V any](m map[funcID]V, name, file string) (funcID, V, bool) {
	id := idOf(name, file)
	if v, ok := m[id]; ok {
		return id, v, true
	}
	id = funcID{name: name}
	v, ok := m[id]
	return id, v, ok
}

// culpritLines computes the costliest lines of the functions fns over the
// stacks that keep selects (nil: all), from a line-granularity stack set;
// perflab's measuring (a stack with a frame ownership.IsGoMeasuring
// names) is no function's.
// A function given without its file matches every file's function of
// that name.
func culpritLines(s *stacks.Set, vi int, fns []funcID, keep func(st []int32) bool) map[funcID][]lineCost {
	want := map[funcID]int{}
	for i, f := range fns {
		want[f] = i
	}
	match := func(name, file string) (int, bool) {
		_, k, ok := lookupFunc(want, name, file)
		return k, ok
	}
	// Which function of fns each line entry belongs to (-1 for none).
	of := make([]int, len(s.Funcs))
	measuring := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		measuring[i] = ownership.IsGoMeasuring(f.Name)
		of[i] = -1
		if k, ok := match(f.Name, f.File); ok {
			of[i] = k
		} else if m := rubyBlockMethod(f.Name, f.File); m != "" {
			if k, ok := match(m, f.File); ok {
				of[i] = k
			}
		}
	}
	type key struct {
		fn   int
		file string
		line int64
	}
	cost := map[key]int64{}
	total := make([]int64, len(fns))
	outer := make([]int32, len(fns))
	for si := 0; si < s.NumStacks(); si++ {
		v := s.Value(si, vi)
		st := s.Stack(si)
		if v == 0 || keep != nil && !keep(st) || slices.ContainsFunc(st, func(f int32) bool { return measuring[f] }) {
			continue
		}
		for i := range outer {
			outer[i] = -1
		}
		found := false
		for _, f := range st {
			if k := of[f]; k >= 0 {
				outer[k], found = f, true
			}
		}
		if !found {
			continue
		}
		for k, f := range outer {
			if f >= 0 {
				fi := s.Funcs[f]
				cost[key{k, fi.File, fi.Line}] += v
				total[k] += v
			}
		}
	}
	out := map[funcID][]lineCost{}
	for k, v := range cost {
		if k.line <= 0 || total[k.fn] == 0 {
			continue
		}
		id := fns[k.fn]
		out[id] = append(out[id], lineCost{file: k.file, line: k.line, share: float64(v) / float64(total[k.fn])})
	}
	for id, ls := range out {
		out[id] = costliestLines(ls)
	}
	return out
}

// costliestLines sorts a function's lines by cost and keeps the first
// culpritLinesMax, each after the first at least culpritLineMinShare.
func costliestLines(ls []lineCost) []lineCost {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].share != ls[j].share {
			return ls[i].share > ls[j].share
		}
		if ls[i].file != ls[j].file {
			return ls[i].file < ls[j].file
		}
		return ls[i].line < ls[j].line
	})
	keepN := 0
	for i, l := range ls {
		if i == culpritLinesMax || i > 0 && l.share < culpritLineMinShare {
			break
		}
		keepN++
	}
	return ls[:keepN]
}

// LineRequest asks for the culprit lines of a function: over the stacks
// through Via when it is set (the library entry point its cost goes
// through: the lines that call it), with the function's cost per request
// to scale the lines' shares by.
type LineRequest struct {
	Function, Via string
	// File is the function's file as the profile records it: a script's
	// functions of one name in other files are not this one ("" for
	// every file's).
	File string
	// Own asks for the lines of the cost the function owns, as its
	// self+called figure counts it (its own code and the library and
	// runtime code it calls, not the user code it calls): each stack's
	// cost at the line of its nearest user frame.
	Own          bool
	UsPerRequest float64
}

// CulpritLines answers each request from the CPU profile: the lines of the
// function its cost goes through, with their cost per request and, when
// src finds the file, their source and a few lines around them (nil for a
// profile without line numbers). Lines no longer in their function in the
// source read are marked.
func CulpritLines(cpu *profile.Profile, reqs []LineRequest, src *Sources, uc UserCode) [][]runfmt.SourceLine {
	out := make([][]runfmt.SourceLine, len(reqs))
	if cpu == nil {
		return out
	}
	if src == nil {
		src = &Sources{}
	}
	s := stacks.FromProfileLines(cpu)
	vi, err := s.SampleIndex("")
	if err != nil || !s.HasLines {
		return out
	}
	var all, owned []funcID
	for _, r := range reqs {
		switch {
		case r.Own:
			owned = append(owned, idOf(r.Function, r.File))
		case r.Via == "":
			all = append(all, idOf(r.Function, r.File))
		}
	}
	lines := culpritLines(s, vi, all, nil)
	var own map[funcID][]lineCost
	if len(owned) > 0 {
		own = ownLines(NewCosts(s, vi, uc, nil), owned)
	}
	for i, r := range reqs {
		id := idOf(r.Function, r.File)
		ls := lines[id]
		switch {
		case r.Own:
			ls = own[id]
		case r.Via != "":
			ls = culpritLines(s, vi, []funcID{id}, stacksWith(s, r.Via))[id]
		}
		out[i] = sourceLines(ls, r.Function, r.UsPerRequest, src)
	}
	return out
}

// ownLines computes the costliest lines of the functions fns from costs
// at line granularity: the cost each line was charged as the nearest user
// frame of its stacks, over the function's charged cost.
func ownLines(c *Costs, fns []funcID) map[funcID][]lineCost {
	want := map[funcID]bool{}
	for _, f := range fns {
		want[f] = true
	}
	total := map[funcID]int64{}
	byLine := map[funcID]map[lineCost]int64{}
	for i, f := range c.set.Funcs {
		id, _, ok := lookupFunc(want, f.Name, f.File)
		if !ok {
			continue
		}
		v := c.charg[i]
		if v == 0 || f.Line <= 0 {
			continue
		}
		if byLine[id] == nil {
			byLine[id] = map[lineCost]int64{}
		}
		byLine[id][lineCost{file: f.File, line: f.Line}] += v
		total[id] += v
	}
	out := map[funcID][]lineCost{}
	for id, ls := range byLine {
		for l, v := range ls {
			l.share = float64(v) / float64(total[id])
			out[id] = append(out[id], l)
		}
		out[id] = costliestLines(out[id])
	}
	return out
}

// stacksWith selects the stacks with a frame of the function named name.
func stacksWith(s *stacks.Set, name string) func([]int32) bool {
	match := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		match[i] = f.Name == name
	}
	return func(st []int32) bool {
		for _, f := range st {
			if match[f] {
				return true
			}
		}
		return false
	}
}

// sourceLines turns line costs into run.json's lines. A Ruby line that
// only closes its method or block is left out: rbspy (with Ruby 3.1)
// reports every frame at its method's last line, which names no code.
func sourceLines(ls []lineCost, fn string, usPerReq float64, src *Sources) []runfmt.SourceLine {
	var out []runfmt.SourceLine
	for _, l := range ls {
		sl := runfmt.SourceLine{File: l.file, Line: l.line, Pct: 100 * l.share, CostUsPerRequest: usPerReq * l.share}
		if f := src.File(l.file); f.Err == nil {
			text, ok := f.Line(l.line)
			if sourceLang(f.Path) == runfmt.RuntimeRuby && isRubyEnd(text) {
				continue
			}
			sl.Text = strings.TrimSpace(text)
			if match, known := f.Matches(fn, l.line); known && !match || !ok {
				sl.SourceChanged = true
			}
			lo := max(1, l.line-culpritContext)
			hi := min(int64(len(f.Lines)), l.line+culpritContext)
			if ok {
				sl.ContextStart = lo
				sl.Context = append([]string(nil), f.Lines[lo-1:hi]...)
			}
		}
		out = append(out, sl)
	}
	return out
}
