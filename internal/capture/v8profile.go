package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
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
// since the previous one (timeDeltas; the first since startTime).
type v8Profile struct {
	Nodes      []v8Node `json:"nodes"`
	StartTime  int64    `json:"startTime"`
	EndTime    int64    `json:"endTime"`
	Samples    []int64  `json:"samples"`
	TimeDeltas []int64  `json:"timeDeltas"`
}

type v8Node struct {
	ID        int64 `json:"id"`
	CallFrame struct {
		FunctionName string `json:"functionName"`
		URL          string `json:"url"`
		LineNumber   int64  `json:"lineNumber"` // 0-based: the declaration
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
	v8Root    = "(root)"
	v8Idle    = "(idle)"
	v8Program = "(program)"
)

// ParseV8Profile reads a V8 CPU profile (the JSON of the inspector's
// Profile object, as node --cpu-prof writes it too) into a CPU profile
// like the other profilers': one Location per (function, line), so that
// the line a sample fell on inside its function is the leaf frame's line,
// and the callers' frames are their functions' declaration lines (V8 does
// not record call sites). Each sample is worth the time to the next one
// (the last: to endTime), never more than maxNanos; samples of an idle
// thread ((idle)) are left out, and every sample is labelled with pid.
func ParseV8Profile(data []byte, pid, periodNanos, maxNanos int64) (*profile.Profile, error) {
	if periodNanos <= 0 || maxNanos < periodNanos {
		return nil, fmt.Errorf("parsing V8 profile: period %dns, most %dns: want 0 < period <= most", periodNanos, maxNanos)
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
	if len(vp.TimeDeltas) != len(vp.Samples) {
		return nil, fmt.Errorf("parsing V8 profile: %d samples but %d time deltas", len(vp.Samples), len(vp.TimeDeltas))
	}
	b := newBuilder(periodNanos)
	at := vp.StartTime
	for i, id := range vp.Samples {
		at += vp.TimeDeltas[i]
		next := vp.EndTime
		if i+1 < len(vp.Samples) {
			next = at + vp.TimeDeltas[i+1]
		}
		n, ok := t.byID[id]
		if !ok {
			return nil, fmt.Errorf("parsing V8 profile: sample %d is of node %d, not in the tree", i, id)
		}
		if n.CallFrame.FunctionName == v8Idle {
			continue
		}
		nanos := min(max((next-at)*1000, 0), maxNanos)
		b.add(t.stack(n, t.leafLine(n)), 1, nanos, labels{pid: pid})
	}
	return b.profile(), nil
}

// v8Tree is a profile's call tree, with what is left of each node's line
// ticks to hand out to its samples.
type v8Tree struct {
	byID   map[int64]*v8Node
	parent map[int64]int64
	// lines are, per node, the lines its samples are still to fall on,
	// as many ticks of each as positionTicks says, handed out in order.
	lines map[int64][]int64
}

func newV8Tree(nodes []v8Node) (*v8Tree, error) {
	if len(nodes) > maxV8Nodes {
		return nil, fmt.Errorf("parsing V8 profile: %d nodes: more than %d", len(nodes), maxV8Nodes)
	}
	t := &v8Tree{byID: make(map[int64]*v8Node, len(nodes)), parent: map[int64]int64{}, lines: map[int64][]int64{}}
	for i := range nodes {
		n := &nodes[i]
		if _, dup := t.byID[n.ID]; dup {
			return nil, fmt.Errorf("parsing V8 profile: node %d twice", n.ID)
		}
		t.byID[n.ID] = n
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
	return t, nil
}

// leafLine is the line the next sample of n fell on: its positionTicks
// handed out in order of line, each as many times as its ticks (the
// profile says how many samples fell on each line, not which), then the
// function's declaration for samples beyond them.
func (t *v8Tree) leafLine(n *v8Node) int64 {
	ls, ok := t.lines[n.ID]
	if !ok {
		pts := slices.Clone(n.PositionTicks)
		slices.SortFunc(pts, func(a, b struct {
			Line  int64 `json:"line"`
			Ticks int64 `json:"ticks"`
		}) int {
			return int(min(max(a.Line-b.Line, -1), 1))
		})
		for _, pt := range pts {
			for k := int64(0); k < min(pt.Ticks, n.HitCount, maxV8Nodes) && int64(len(ls)) < n.HitCount; k++ {
				ls = append(ls, pt.Line)
			}
		}
	}
	if len(ls) == 0 {
		t.lines[n.ID] = ls
		return declLine(n)
	}
	t.lines[n.ID] = ls[1:]
	return ls[0]
}

// stack is n's stack, leaf first, the leaf on line leaf; the root and an
// empty (program) frame's pseudo-nodes are left out.
func (t *v8Tree) stack(n *v8Node, leaf int64) []frame {
	var out []frame
	line := leaf
	for depth := 0; n != nil && depth < maxV8Depth; depth++ {
		if n.CallFrame.FunctionName != v8Root {
			out = append(out, v8Frame(n, line))
		}
		p, ok := t.parent[n.ID]
		if !ok {
			break
		}
		n, line = t.byID[p], declLine(t.byID[p])
	}
	return out
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
		return frame{name: name, dso: "node"}
	}
	return frame{name: name, file: file, line: line}
}
