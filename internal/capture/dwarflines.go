package capture

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"sort"
)

// dwarfIndex finds, for an instruction address of one ELF binary, its
// function, source line and the calls inlined there, from the binary's
// DWARF: what `addr2line -i -f` prints. Written with debug/dwarf because
// pprof's symbolizer is internal to google/pprof and runs addr2line or
// llvm-symbolizer, and perf's own source lines (libdw) read none from
// the DWARF 5 that Go writes ("go.go:0").
type dwarfIndex struct {
	d     *dwarf.Data
	loads []elf.ProgHeader // PT_LOAD segments: file offsets to addresses
	funcs []dwFunc         // sorted by lo
	// names of subprograms by offset: the abstract origins of inlined
	// calls and of out-of-line copies.
	names map[dwarf.Offset]string
	lines map[dwarf.Offset]*cuLines
}

// dwFunc is one address range of a function, with the calls inlined in it.
type dwFunc struct {
	lo, hi uint64
	name   string
	origin dwarf.Offset // when the name is the origin's (0: none)
	cu     *dwarf.Entry
	inl    *[]dwInline
}

// dwInline is one inlined call: where its code is, whose it is, and the
// line of the caller that called it.
type dwInline struct {
	ranges   [][2]uint64
	origin   dwarf.Offset
	callFile int64
	callLine int64
	depth    int // 1 for a call inlined in the function itself
}

// cuLines is a compilation unit's line table.
type cuLines struct {
	lr    *dwarf.LineReader
	files []*dwarf.LineFile
}

// srcFrame is one frame of an address: a function and its line.
type srcFrame struct {
	fn, file string
	line     int64
}

// errNoDWARF is a binary without debugging information.
var errNoDWARF = errors.New("no DWARF")

// openDWARF indexes the functions of the ELF binary at path. A binary
// the debug packages cannot make sense of (they may panic on a corrupt
// one) is an error.
func openDWARF(path string) (x *dwarfIndex, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, fmt.Errorf("reading %s: corrupt ELF or DWARF: %v", path, r)
		}
	}()
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoDWARF, err)
	}
	x = &dwarfIndex{d: d, names: map[dwarf.Offset]string{}, lines: map[dwarf.Offset]*cuLines{}}
	for _, ph := range f.Progs {
		if ph.Type == elf.PT_LOAD {
			x.loads = append(x.loads, ph.ProgHeader)
		}
	}
	if err := x.index(); err != nil {
		return nil, err
	}
	return x, nil
}

// scope is what a DIE's children belong to: the function, and how deep in
// inlined calls.
type scope struct {
	fn    *dwFunc
	depth int
}

// index reads every subprogram and inlined call of the binary.
func (x *dwarfIndex) index() error {
	r := x.d.Reader()
	var cu *dwarf.Entry
	var stack []scope
	cur := scope{}
	for {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("reading DWARF: %w", err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			if n := len(stack); n > 0 {
				cur, stack = stack[n-1], stack[:n-1]
			}
			continue
		}
		next := cur
		switch e.Tag {
		case dwarf.TagCompileUnit:
			cu, next = e, scope{}
		case dwarf.TagSubprogram:
			next = scope{fn: x.addFunc(e, cu)}
		case dwarf.TagInlinedSubroutine:
			if cur.fn != nil {
				next.depth = cur.depth + 1
				x.addInline(e, cur.fn, next.depth)
			}
		}
		if e.Children {
			stack = append(stack, cur)
			cur = next
		}
	}
	sort.Slice(x.funcs, func(i, j int) bool { return x.funcs[i].lo < x.funcs[j].lo })
	return nil
}

// addFunc records a subprogram's name (for the calls inlined from it) and,
// when it has code, its ranges; it returns the function its children
// belong to (nil for an abstract one).
func (x *dwarfIndex) addFunc(e *dwarf.Entry, cu *dwarf.Entry) *dwFunc {
	name, _ := e.Val(dwarf.AttrName).(string)
	origin, _ := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
	if origin == 0 {
		origin, _ = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
	}
	if name != "" {
		x.names[e.Offset] = name
	}
	ranges, err := x.d.Ranges(e)
	if err != nil || len(ranges) == 0 {
		return nil
	}
	inl := &[]dwInline{}
	var first *dwFunc
	for _, rg := range ranges {
		if rg[1] <= rg[0] {
			continue
		}
		x.funcs = append(x.funcs, dwFunc{lo: rg[0], hi: rg[1], name: name, origin: origin, cu: cu, inl: inl})
		if first == nil {
			first = &dwFunc{name: name, origin: origin, cu: cu, inl: inl}
		}
	}
	return first
}

func (x *dwarfIndex) addInline(e *dwarf.Entry, fn *dwFunc, depth int) {
	ranges, err := x.d.Ranges(e)
	if err != nil || len(ranges) == 0 {
		return
	}
	in := dwInline{ranges: ranges, depth: depth}
	in.origin, _ = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
	in.callFile, _ = e.Val(dwarf.AttrCallFile).(int64)
	in.callLine, _ = e.Val(dwarf.AttrCallLine).(int64)
	*fn.inl = append(*fn.inl, in)
}

// address turns a file offset, as perf script prints a user-space address
// (relative to its mapping, plus the mapping's offset in the file), into
// the address the binary's DWARF uses.
func (x *dwarfIndex) address(off uint64) (uint64, bool) {
	for _, ph := range x.loads {
		if off >= ph.Off && off < ph.Off+ph.Filesz {
			return off - ph.Off + ph.Vaddr, true
		}
	}
	return 0, false
}

// frames returns the frames at pc, innermost first: the inlined calls'
// functions, then the function the code belongs to; nil when the DWARF
// says nothing of pc, or its line table is corrupt (debug/dwarf may panic
// on one).
func (x *dwarfIndex) frames(pc uint64) (out []srcFrame) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return x.framesAt(pc)
}

func (x *dwarfIndex) framesAt(pc uint64) []srcFrame {
	i := sort.Search(len(x.funcs), func(i int) bool { return x.funcs[i].lo > pc }) - 1
	if i < 0 || pc >= x.funcs[i].hi {
		return nil
	}
	fn := x.funcs[i]
	lines := x.cuLines(fn.cu)
	if lines == nil {
		return nil
	}
	var le dwarf.LineEntry
	if err := lines.lr.SeekPC(pc, &le); err != nil || le.File == nil {
		return nil
	}
	var chain []dwInline // the calls inlined at pc, outermost first
	for _, in := range *fn.inl {
		if contains(in.ranges, pc) {
			chain = append(chain, in)
		}
	}
	sort.SliceStable(chain, func(a, b int) bool { return chain[a].depth < chain[b].depth })
	out := make([]srcFrame, 0, len(chain)+1)
	file, line := le.File.Name, int64(le.Line)
	for k := len(chain) - 1; k >= 0; k-- {
		in := chain[k]
		out = append(out, srcFrame{fn: x.names[in.origin], file: file, line: line})
		file, line = lines.file(in.callFile), in.callLine
	}
	name := fn.name
	if name == "" {
		name = x.names[fn.origin]
	}
	return append(out, srcFrame{fn: name, file: file, line: line})
}

func contains(ranges [][2]uint64, pc uint64) bool {
	for _, r := range ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// cuLines returns the line table of a compilation unit (nil without one).
func (x *dwarfIndex) cuLines(cu *dwarf.Entry) *cuLines {
	if cu == nil {
		return nil
	}
	if l, ok := x.lines[cu.Offset]; ok {
		return l
	}
	var l *cuLines
	if lr, err := x.d.LineReader(cu); err == nil && lr != nil {
		l = &cuLines{lr: lr, files: lr.Files()}
	}
	x.lines[cu.Offset] = l
	return l
}

// file is the name of the line table's file i ("" when out of range).
func (l *cuLines) file(i int64) string {
	if i < 0 || i >= int64(len(l.files)) || l.files[i] == nil {
		return ""
	}
	return l.files[i].Name
}
