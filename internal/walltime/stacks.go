package walltime

import (
	"encoding/binary"

	"golang.org/x/exp/trace"
)

// frame is one frame of an interned stack.
type frame struct {
	pc       uint64
	fn, file string
	line     int64
}

// stackTable interns the trace's stacks. A trace.Stack is a handle valid in
// its generation only, so each generation gets a fresh handle cache, and
// stacks are interned across generations by their program counters (as
// `go tool trace` does).
type stackTable struct {
	gen    map[trace.Stack]*stackInfo
	byPCs  map[string]*stackInfo
	frames [][]frame // by stack id
	infos  []*stackInfo
	key    []byte
	funcs  []string
}

func newStackTable() stackTable {
	return stackTable{gen: map[trace.Stack]*stackInfo{}, byPCs: map[string]*stackInfo{}}
}

// newGeneration drops the handle cache: the next events' stacks are new
// handles.
func (t *stackTable) newGeneration() {
	if len(t.gen) > 0 {
		t.gen = map[trace.Stack]*stackInfo{}
	}
}

// info returns what is known about s, or nil for an empty stack.
func (t *stackTable) info(s trace.Stack) *stackInfo {
	if s == trace.NoStack {
		return nil
	}
	if si, ok := t.gen[s]; ok {
		return si
	}
	t.key = t.key[:0]
	t.funcs = t.funcs[:0]
	var fs []frame
	for f := range s.Frames() {
		t.key = binary.LittleEndian.AppendUint64(t.key, f.PC)
		t.funcs = append(t.funcs, f.Func)
		fs = append(fs, frame{pc: f.PC, fn: f.Func, file: f.File, line: int64(f.Line)})
	}
	var si *stackInfo
	if len(fs) > 0 {
		if si = t.byPCs[string(t.key)]; si == nil {
			si = newStackInfo(int32(len(t.frames)), t.funcs)
			t.frames = append(t.frames, fs)
			t.infos = append(t.infos, si)
			t.byPCs[string(t.key)] = si
		}
	}
	t.gen[s] = si
	return si
}
