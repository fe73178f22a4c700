package capture

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// MaxV8ProfileBytes bounds a V8 CPU profile read (the inspector's
// Profiler.stop answer): a minute of a large application at 1 kHz is a
// few megabytes; the bound leaves room and stops a runaway one.
const MaxV8ProfileBytes = 256 << 20

// maxV8Nodes bounds the call tree's nodes and a stack's depth: V8 stops
// its own stacks far below either.
const (
	maxV8Nodes = 1 << 22
	maxV8Depth = 1 << 12
)

// v8Profile is V8's CPU profile as the inspector's Profiler.stop returns
// it: a call tree whose nodes count their own samples (hitCount) and
// where in the function they fell (positionTicks, by 1-based line), and
// the samples in order (each a leaf node's id) with the microseconds
// since the previous one (timeDeltas: one a sample, else the profile is
// refused; their sum is not CPU time, see ParseV8Profile).
type v8Profile struct {
	Nodes      []v8Node `json:"nodes"`
	Samples    []int64  `json:"samples"`
	TimeDeltas []int64  `json:"timeDeltas"`
}

type v8Node struct {
	ID        int64 `json:"id"`
	CallFrame struct {
		FunctionName string `json:"functionName"`
		URL          string `json:"url"`
		LineNumber   int64  `json:"lineNumber"`   // 0-based: the declaration
		ColumnNumber int64  `json:"columnNumber"` // 0-based, in UTF-16 units: its parameters
	} `json:"callFrame"`
	HitCount      int64   `json:"hitCount"`
	Children      []int64 `json:"children"`
	PositionTicks []struct {
		Line  int64 `json:"line"`
		Ticks int64 `json:"ticks"`
	} `json:"positionTicks"`
}

// V8 names the samples outside JavaScript with these pseudo-functions.
const (
	v8Root = "(root)"
	v8Idle = "(idle)"
)

// V8Options are what ParseV8ProfileOptions reads beside the profile.
type V8Options struct {
	// PID labels every sample; PeriodNanos is what a sample is worth,
	// the sampling interval.
	PID, PeriodNanos int64
	// Source reads a script's source by the URL the profile names it
	// with (file:///srv/app.js); nil, or an error, leaves the script's
	// callers on their declarations' lines.
	Source func(url string) ([]byte, error)
}

// ParseV8ProfileOptions reads a V8 CPU profile (the JSON of the
// inspector's Profile object, as node --cpu-prof writes it too) into a
// CPU profile like the other profilers': one Location per (function,
// line), so that the line a sample fell on inside its function is the
// leaf frame's line. V8 does not record where a caller called: with the
// script's source (o.Source), a caller's frame is on the line of its
// call (jsscan.go), else on its function's declaration. Each sample is
// worth o.PeriodNanos, the sampling interval, as perf's are: V8 takes a
// sample when the thread it interrupts runs, and ticks that fall while
// it waits for a CPU come as one (the time between samples would count
// that wait as work); samples of an idle thread ((idle)) are left out,
// and every sample is labelled with o.PID.
func ParseV8ProfileOptions(data []byte, o V8Options) (*profile.Profile, error) {
	pid, periodNanos := o.PID, o.PeriodNanos
	if periodNanos <= 0 {
		return nil, fmt.Errorf("parsing V8 profile: period %dns: must be more than 0", periodNanos)
	}
	if len(data) > MaxV8ProfileBytes {
		return nil, fmt.Errorf("parsing V8 profile: %d bytes: more than %d", len(data), MaxV8ProfileBytes)
	}
	var vp v8Profile
	if err := json.Unmarshal(data, &vp); err != nil {
		return nil, fmt.Errorf("parsing V8 profile: %w", err)
	}
	t, err := newV8Tree(vp.Nodes)
	if err != nil {
		return nil, err
	}
	t.src = o.Source
	if len(vp.TimeDeltas) != len(vp.Samples) {
		return nil, fmt.Errorf("parsing V8 profile: %d samples but %d time deltas", len(vp.Samples), len(vp.TimeDeltas))
	}
	for i, id := range vp.Samples {
		if _, ok := t.byID[id]; !ok {
			return nil, fmt.Errorf("parsing V8 profile: sample %d is of node %d, not in the tree", i, id)
		}
		t.total[id]++
	}
	b := newBuilder(periodNanos)
	for _, id := range vp.Samples {
		n := t.byID[id]
		if n.CallFrame.FunctionName == v8Idle {
			continue
		}
		b.add(t.stack(n, t.leafLine(n)), 1, periodNanos, labels{pid: pid})
	}
	return b.profile(), nil
}

// v8Tree is a profile's call tree, with how many samples fell on each
// node and how many of them were handed a line so far.
type v8Tree struct {
	byID   map[int64]*v8Node
	parent map[int64]int64
	// total and given count, per node, its samples and those handed a
	// line; ticks are its positionTicks by line, ascending, with their
	// running sum.
	total, given map[int64]int64
	ticks        map[int64][]v8Ticks
	// decls are, per script, its functions the profile names, by the
	// line they are declared on.
	decls map[string]map[int64]v8Decl
	// src reads a script's source (nil: none); scripts are those read
	// (nil for one that could not be), fns the extents of functions in
	// them, calls the line of each caller's call of a callee, and sole
	// per node the one line its calls are on (0: none known, or several).
	src     func(string) ([]byte, error)
	scripts map[string]*jsScript
	fns     map[v8Pos]jsFn
	calls   map[v8Call]int64
	sole    map[int64]int64
	inl     map[v8Call]*v8Node // per node and line, the function inlined there (nil: foreign)
}

// v8Decl is a function of a script the profile names: its name and the
// 0-based column of its parameters.
type v8Decl struct {
	name string
	col  int64
}

// v8Pos is where a function's parameters begin: its script, 0-based line
// and column.
type v8Pos struct {
	url       string
	line, col int64
}

// jsFn is a function's extent in its script, ok false when unknown.
type jsFn struct {
	r  jsRange
	ok bool
}

// v8Call is a caller's node and its callee: a node's id, or for a
// function V8 inlined into the caller (no node of its own) minus its
// declaration's line; or a node and a line of it.
type v8Call struct{ caller, callee int64 }

// v8Ticks is a line of a node and the ticks up to it, itself included.
type v8Ticks struct{ line, upTo int64 }

func newV8Tree(nodes []v8Node) (*v8Tree, error) {
	if len(nodes) > maxV8Nodes {
		return nil, fmt.Errorf("parsing V8 profile: %d nodes: more than %d", len(nodes), maxV8Nodes)
	}
	t := &v8Tree{byID: make(map[int64]*v8Node, len(nodes)), parent: map[int64]int64{},
		total: map[int64]int64{}, given: map[int64]int64{}, ticks: map[int64][]v8Ticks{}, decls: map[string]map[int64]v8Decl{},
		scripts: map[string]*jsScript{}, fns: map[v8Pos]jsFn{}, calls: map[v8Call]int64{}, sole: map[int64]int64{}, inl: map[v8Call]*v8Node{}}
	for i := range nodes {
		n := &nodes[i]
		if _, dup := t.byID[n.ID]; dup {
			return nil, fmt.Errorf("parsing V8 profile: node %d twice", n.ID)
		}
		t.byID[n.ID] = n
		if d := declLine(n); d > 0 && n.CallFrame.FunctionName != "" {
			if t.decls[n.CallFrame.URL] == nil {
				t.decls[n.CallFrame.URL] = map[int64]v8Decl{}
			}
			t.decls[n.CallFrame.URL][d] = v8Decl{n.CallFrame.FunctionName, n.CallFrame.ColumnNumber}
		}
	}
	for _, n := range t.byID {
		for _, c := range n.Children {
			if _, ok := t.byID[c]; !ok {
				return nil, fmt.Errorf("parsing V8 profile: node %d has child %d, not in the tree", n.ID, c)
			}
			if _, two := t.parent[c]; two || c == n.ID {
				return nil, errors.New("parsing V8 profile: the nodes are not a tree")
			}
			t.parent[c] = n.ID
		}
	}
	if !t.acyclic() {
		return nil, errors.New("parsing V8 profile: the nodes are not a tree")
	}
	return t, nil
}

// acyclic says whether every node is reached from a node without a
// parent: with one parent each, the nodes are then a forest.
func (t *v8Tree) acyclic() bool {
	children := map[int64][]int64{}
	var next []int64
	for id := range t.byID {
		if p, ok := t.parent[id]; ok {
			children[p] = append(children[p], id)
		} else {
			next = append(next, id)
		}
	}
	reached := 0
	for len(next) > 0 {
		id := next[len(next)-1]
		next = append(next[:len(next)-1], children[id]...)
		reached++
	}
	return reached == len(t.byID)
}

// leafLine is the line the next sample of n fell on. The profile says how
// many of n's samples fell on each line (positionTicks), not which: the
// k-th of n's N samples is given the line at (k+½)/N of its ticks, in
// order of line, so each line gets its share of the samples, whether V8
// counted as many ticks as samples or not. Without ticks it is the
// function's declaration.
func (t *v8Tree) leafLine(n *v8Node) int64 {
	ts, ok := t.ticks[n.ID]
	if !ok {
		ts = lineTicks(n)
		t.ticks[n.ID] = ts
	}
	if len(ts) == 0 {
		return declLine(n)
	}
	k, total := t.given[n.ID], max(t.total[n.ID], 1)
	t.given[n.ID]++
	at := int64((float64(k) + 0.5) / float64(total) * float64(ts[len(ts)-1].upTo))
	i, _ := slices.BinarySearchFunc(ts, at, func(e v8Ticks, at int64) int { return cmp.Compare(e.upTo, at+1) })
	return ts[min(i, len(ts)-1)].line
}

// lineTicks are n's positive positionTicks, by line, ascending, with
// their running sum (each bounded, so the sum does not overflow).
func lineTicks(n *v8Node) []v8Ticks {
	byLine := map[int64]int64{}
	for _, pt := range n.PositionTicks {
		if pt.Ticks > 0 && pt.Line > 0 {
			byLine[pt.Line] += min(pt.Ticks, 1<<32)
		}
	}
	lines := slices.Sorted(maps.Keys(byLine))
	out := make([]v8Ticks, len(lines))
	var sum int64
	for i, l := range lines {
		sum += min(byLine[l], 1<<32)
		out[i] = v8Ticks{line: l, upTo: sum}
	}
	return out
}

// stack is n's stack, leaf first, the leaf on line leaf; the root and an
// empty (program) frame's pseudo-nodes are left out. Each caller is on
// the line of its call (callLine).
func (t *v8Tree) stack(n *v8Node, leaf int64) []frame {
	var out []frame
	line := leaf
	switch g, foreign := t.inlined(n, leaf); {
	case g != nil:
		out = append(out, v8Frame(g, leaf))
		line = t.callLine(n, g, -declLine(g))
	case foreign:
		line = t.soleCallLine(n)
	}
	for depth := 0; n != nil && depth < maxV8Depth; depth++ {
		if n.CallFrame.FunctionName != v8Root {
			out = append(out, v8Frame(n, line))
		}
		p, ok := t.parent[n.ID]
		if !ok {
			break
		}
		line = t.callLine(t.byID[p], n, n.ID)
		n = t.byID[p]
	}
	return out
}

// inlined is the function a sample of n on line fell in when that line
// is not n's own: V8 gives code it inlined into n no frame of its own,
// and its samples fall on n's node at the inlined function's lines. With
// n's source, a line outside n's extent is in the innermost named
// function of n's script holding it, when n calls that function (a
// helper inlined into it, whether or not it ran on its own in the
// window), or else (foreign) in code V8 inlined from another script (the
// lines of the scripts' functions share the positionTicks). Without it,
// a line before n's declaration is in the function of n's script the
// profile names declared last before it (seen where it ran on its own,
// before it was inlined), and a callee declared after n, or in another
// script, keeps its line on n.
func (t *v8Tree) inlined(n *v8Node, line int64) (g *v8Node, foreign bool) {
	if line <= 0 {
		return nil, false
	}
	if s, r, ok := t.function(n); ok {
		if first, last := s.span(r); first <= line && line <= last {
			return nil, false
		}
		k := v8Call{n.ID, line}
		if g, ok := t.inl[k]; ok {
			return g, g == nil
		}
		if f, ok := s.enclosing(line); ok && len(s.callLines(r, f.name)) > 0 {
			g = &v8Node{}
			g.CallFrame.FunctionName, g.CallFrame.URL = f.name, n.CallFrame.URL
			g.CallFrame.LineNumber, g.CallFrame.ColumnNumber = s.line(s.toks[f.r.first].off)-1, -1
		}
		t.inl[k] = g
		return g, g == nil
	}
	if line >= declLine(n) {
		return nil, false
	}
	best := int64(0)
	for d := range t.decls[n.CallFrame.URL] {
		if d <= line && d > best {
			best = d
		}
	}
	if best == 0 {
		return nil, false
	}
	d := t.decls[n.CallFrame.URL][best]
	g = &v8Node{}
	g.CallFrame.FunctionName, g.CallFrame.URL, g.CallFrame.LineNumber, g.CallFrame.ColumnNumber = d.name, n.CallFrame.URL, best-1, d.col
	return g, false
}

// function is n's script and n's extent in it; false without its source
// or when the source there is not a function.
func (t *v8Tree) function(n *v8Node) (*jsScript, jsRange, bool) {
	s := t.script(n.CallFrame.URL)
	if s == nil {
		return nil, jsRange{}, false
	}
	r, ok := t.functionAt(s, v8Pos{n.CallFrame.URL, n.CallFrame.LineNumber, n.CallFrame.ColumnNumber})
	return s, r, ok
}

func (t *v8Tree) functionAt(s *jsScript, p v8Pos) (jsRange, bool) {
	f, seen := t.fns[p]
	if !seen {
		f.r, f.ok = s.function(p.line, p.col)
		t.fns[p] = f
	}
	return f.r, f.ok
}

// script is the source of the script at url, read once; nil when there
// is no reader, the reader fails or the source is too large.
func (t *v8Tree) script(url string) *jsScript {
	if t.src == nil || url == "" {
		return nil
	}
	s, seen := t.scripts[url]
	if !seen {
		if b, err := t.src(url); err == nil && len(b) <= MaxScriptBytes {
			s = newJSScript(b)
		}
		t.scripts[url] = s
	}
	return s
}

// callLine is the line on which caller calls callee (key: callee's node
// id, or minus the declaration line of a function inlined into caller):
// the one line of the caller's source that calls a function of the
// callee's name (or, with no call, names it: a callback passed by name),
// else, for a function written inside the caller (an anonymous callback
// passed on), the line it is written on; the caller's declaration when
// the source is not known, or the name is found on several lines or on
// none.
func (t *v8Tree) callLine(caller, callee *v8Node, key int64) int64 {
	k := v8Call{caller.ID, key}
	if l, ok := t.calls[k]; ok {
		return l
	}
	l := declLine(caller)
	if s, r, ok := t.function(caller); ok {
		var calls []int64
		if name := calleeName(callee.CallFrame.FunctionName); name != "" {
			calls = s.callLines(r, name)
		}
		off, ok := s.offset(callee.CallFrame.LineNumber, callee.CallFrame.ColumnNumber)
		switch {
		case len(calls) == 1:
			l = calls[0]
		case len(calls) == 0 && ok && callee.CallFrame.URL == caller.CallFrame.URL && s.contains(r, off) && off > s.toks[r.first].off:
			l = s.line(off) // written inside the caller: a callback it passes on
		}
	}
	t.calls[k] = l
	return l
}

// soleCallLine is the line of n's source its calls of its callees are
// all on, for samples that fell in code of another script V8 inlined into
// n (which call it came from is not recorded); n's declaration when its
// calls are on several lines, or none is known.
func (t *v8Tree) soleCallLine(n *v8Node) int64 {
	if l, ok := t.sole[n.ID]; ok {
		return l
	}
	decl, l := declLine(n), int64(0)
	for _, c := range n.Children {
		switch cl := t.callLine(n, t.byID[c], c); {
		case cl == decl:
		case l == 0:
			l = cl
		case cl != l:
			l = -1
		}
	}
	if l <= 0 {
		l = decl
	}
	t.sole[n.ID] = l
	return l
}

// calleeName is the name a call of a function V8 names so is written
// with: its last part ("Hash.update" is called as update); "" for an
// anonymous function, an accessor or another name no call spells.
func calleeName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "(anonymous)" {
		return ""
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) && name[i] != '#' {
			return ""
		}
	}
	return name
}

// declLine is the 1-based line of n's function's declaration, 0 for none.
func declLine(n *v8Node) int64 {
	if n.CallFrame.LineNumber < 0 || n.CallFrame.URL == "" {
		return 0
	}
	return n.CallFrame.LineNumber + 1
}

// v8Frame is n as a frame on line: a script's file:// URL as its path,
// V8's builtins and pseudo-functions ((program), (garbage collector)) in
// the node binary's name, an anonymous function as "(anonymous)".
func v8Frame(n *v8Node, line int64) frame {
	name, file := n.CallFrame.FunctionName, n.CallFrame.URL
	if u, err := url.Parse(file); err == nil && u.Scheme == "file" {
		file = u.Path
	}
	if name == "" {
		name = "(anonymous)"
	}
	if file == "" || strings.HasPrefix(name, "(") && name != "(anonymous)" {
		return frame{name: name, dso: string(runfmt.RuntimeNode)} // node's binary
	}
	return frame{name: name, file: file, line: line}
}
