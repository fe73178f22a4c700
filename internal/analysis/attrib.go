package analysis

import (
	"slices"

	"perflab/internal/ownership"
	"perflab/internal/stacks"
)

// Costs holds per-function costs of one sample type, computed in one pass over
// a stack set: flat, cumulative and, under attribution (see the package
// doc), charged to the nearest user function. Functions are indices into
// the set's Funcs.
type Costs struct {
	set  *stacks.Set
	vi   int
	user []bool // per function: user code
	// cls, per function: whose code it is (the run's ownership model);
	// pkg its dependency's label as an index into pkgs (-1: not a
	// dependency).
	cls  []ownership.Class
	pkg  []int32
	pkgs []string
	// owner, per function: for a Ruby block ("block in X"), the method X
	// it belongs to; its cost is charged to X when X is its caller.
	owner []string
	flat  []int64 // cost where the function is the leaf
	cum   []int64 // cost of stacks containing the function (counted once)
	charg []int64 // flat under attribution: own flat plus what it was charged
	// chargedTo, per stack, is the function its cost is charged to (-1:
	// none, a stack not selected, without a value or of an import).
	chargedTo []int32
	attr      []int64 // cost of non-user frames charged to the function
	// from[user][callee] is the cost charged to a user function through the
	// non-user function it called directly.
	from map[[2]int32]int64
	// lib[user][pkg] is the cost charged to a user function from the
	// dependency pkg (an index into pkgs) below it: "library X under your
	// Y". db[user] is the part of its charged cost in database client
	// code (ownership's Database role).
	lib   map[[2]int32]int64
	db    []int64
	total int64
	// importer, per function: the import machinery's entry (imports.go);
	// imports says any function is, imported is the cost of the selected
	// stacks through one: start-up work, charged to no function.
	importer []bool
	imports  bool
	imported int64
	// measuring, per stack, says it is perflab's own measuring
	// (ownership.MeasuringStack: profile and trace writing the service
	// did for perflab); nil when no stack is. Such a stack is in total
	// and in measured, and in no function's cost.
	measuring []bool
	measured  int64
}

// entryTrampolines are frames that start every goroutine or thread and say
// nothing about the work; a stack without user code is charged to the first
// frame below them.
var entryTrampolines = map[string]bool{
	"runtime.goexit": true, "runtime.mstart": true, "runtime.mstart0": true,
	"runtime.mstart1": true, "runtime.mcall": true, "runtime.systemstack": true,
	"runtime.main": true, "runtime.morestack": true, "runtime.rt0_go": true,
	"_start": true, "__libc_start_main": true, "__libc_start_call_main": true,
	"start_thread": true, "clone": true, "clone3": true, "[unknown]": true,
}

// NewCosts walks every stack of s once for sample type vi, deciding what
// is user code with uc. keep, when non-nil, selects stacks.
func NewCosts(s *stacks.Set, vi int, uc UserCode, keep func(stack []int32) bool) *Costs {
	n := len(s.Funcs)
	c := &Costs{
		set: s, vi: vi,
		user: make([]bool, n), flat: make([]int64, n), cum: make([]int64, n),
		charg: make([]int64, n), attr: make([]int64, n),
		from: map[[2]int32]int64{}, lib: map[[2]int32]int64{}, db: make([]int64, n),
		cls: make([]ownership.Class, n), pkg: make([]int32, n), importer: make([]bool, n),
		chargedTo: make([]int32, s.NumStacks()),
	}
	c.owner = make([]string, n)
	pkgIndex := map[string]int32{}
	for i, f := range s.Funcs {
		c.importer[i] = importFrame(f.Name, f.File)
		c.imports = c.imports || c.importer[i]
		c.cls[i] = uc.Class(f.Name, f.File)
		c.user[i] = c.cls[i].Kind == ownership.User
		if c.user[i] {
			c.owner[i] = rubyBlockMethod(f.Name, f.File)
		}
		c.pkg[i] = -1
		if c.cls[i].Kind == ownership.Dependency {
			l := c.cls[i].Label()
			k, ok := pkgIndex[l]
			if !ok {
				k = int32(len(c.pkgs))
				pkgIndex[l] = k
				c.pkgs = append(c.pkgs, l)
			}
			c.pkg[i] = k
		}
	}
	seen := make([]int32, n)
	for i := range seen {
		seen[i] = -1
	}
	c.measuring = measuringStacks(s, c.cls)
	for si := 0; si < s.NumStacks(); si++ {
		v := s.Value(si, vi)
		st := s.Stack(si)
		c.total += v
		c.chargedTo[si] = -1
		if c.IsMeasuring(si) {
			c.measured += v
			continue
		}
		if v == 0 || len(st) == 0 || (keep != nil && !keep(st)) {
			continue
		}
		c.flat[st[0]] += v
		for _, f := range st {
			if seen[f] != int32(si) {
				seen[f] = int32(si)
				c.cum[f] += v
			}
		}
		if c.importStack(st) {
			c.imported += v
			continue
		}
		c.chargedTo[si] = c.charge(st, v)
	}
	return c
}

// measuringStacks flags the stacks of s that are perflab's measuring,
// classes being its functions' (nil when none is).
func measuringStacks(s *stacks.Set, classes []ownership.Class) []bool {
	if !slices.ContainsFunc(classes, ownership.Class.Measuring) {
		return nil
	}
	out := make([]bool, s.NumStacks())
	for si := range out {
		out[si] = ownership.MeasuringStack(s.Stack(si), classes)
	}
	return out
}

// IsMeasuring says stack si is perflab's own measuring
// (ownership.MeasuringStack): it is counted in Total and in measured,
// and in no function's cost.
func (c *Costs) IsMeasuring(si int) bool { return c.measuring != nil && c.measuring[si] }

// charge books v of stack st to the nearest user caller of its leaf (for a
// Ruby block, to the method it is written in), with the dependency it
// went through (ownership.ChargeStack), and returns the function charged.
func (c *Costs) charge(st []int32, v int64) int32 {
	ch := ownership.ChargeStack(st, c.cls)
	if i := ch.Owner.Location; i >= 0 {
		f := st[i]
		if c.owner[f] != "" {
			f, i = c.blockMethod(st, i)
		}
		c.charg[f] += v
		if i > 0 {
			c.attr[f] += v
			c.from[[2]int32{f, st[i-1]}] += v
		}
		if l := ch.Library.Location; l >= 0 && c.pkg[st[l]] >= 0 {
			c.lib[[2]int32{f, c.pkg[st[l]]}] += v
		}
		if ch.Database {
			c.db[f] += v
		}
		return f
	}
	e := c.entryFrame(st)
	c.charg[e] += v
	if e != st[0] {
		c.attr[e] += v
	}
	return e
}

// entryFrame is the outermost frame of st that is not a trampoline.
func (c *Costs) entryFrame(st []int32) int32 {
	for i := len(st) - 1; i > 0; i-- {
		if !entryTrampolines[c.set.Funcs[st[i]].Name] {
			return st[i]
		}
	}
	return st[0]
}

// TopCallee returns the non-user function through which user function f was
// charged the most, or -1.
func (c *Costs) TopCallee(f int32) (int32, int64) {
	best, bv := int32(-1), int64(0)
	for k, v := range c.from {
		if k[0] == f && (v > bv || v == bv && best >= 0 && c.set.Funcs[k[1]].Name < c.set.Funcs[best].Name) {
			best, bv = k[1], v
		}
	}
	return best, bv
}

// blockMethod finds, above the Ruby block at st[i], the nearest frame of the
// method the block is written in (same name, same file) and returns it with
// its index; the block itself when that method is not on the stack (a proc
// called after its method returned).
func (c *Costs) blockMethod(st []int32, i int) (int32, int) {
	b := c.set.Funcs[st[i]]
	for j := i + 1; j < len(st); j++ {
		if g := c.set.Funcs[st[j]]; g.Name == c.owner[st[i]] && g.File == b.File {
			return st[j], j
		}
	}
	return st[i], i
}

// TopLibrary returns the dependency ("google.golang.org/protobuf
// v1.36.1") through which user function f was charged the most, and that
// cost; "" when none was charged to it.
func (c *Costs) TopLibrary(f int32) (string, int64) {
	best, bv := "", int64(0)
	for k, v := range c.lib {
		if k[0] == f && (v > bv || v == bv && c.pkgs[k[1]] < best) {
			best, bv = c.pkgs[k[1]], v
		}
	}
	return best, bv
}

// Database is the part of user function f's charged cost spent in
// database client code below it.
func (c *Costs) Database(f int32) int64 { return c.db[f] }
