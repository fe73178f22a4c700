package analysis

import (
	"math"
	"sort"
)

// The frame that owns the cost. A profile's leaves say where the CPU burns,
// not what to change: when a constructor called per request spreads its
// cost over five helpers, each helper is a modest leaf and the constructor
// is the culprit. Attribution (attrib.go) already charges library and
// runtime code to the user function that called it; the owner walk extends
// the idea to stacks that are user code all the way down.
//
// Each stack is projected onto its user frames, outermost first (a Ruby
// block onto its method, repeated frames collapsed, and for a Go server the
// frames above the request's handler left out, so each handler is a root).
// Then, region by region: start at the user function with the most
// inclusive cost, and walk toward its callees while one callee holds most
// (more than half) of the current function's cost. Stop where the cost fans
// out over several callees, or stays in the function itself and the library
// code it calls: that function owns the region. A walk that comes back to a
// function already on its path (recursion: Mash#initialize -> deep_update
// -> convert_value -> Mash#initialize) stops at that function, the entry of
// the recursion, and a walk that stops inside a recursion gives the
// region to the recursion's entry (recursionEntry). The region's stacks
// (those through the owner) are then set aside and the next region starts
// from what remains. The outermost user code (a thread's entry, a serve
// loop, a Go request handler) does not own a cost it spreads over several
// callees: the walk goes on from those.

// Owner is one region of a profile and the function that owns it.
type Owner struct {
	// Func is the owning function, a user function.
	Func int32
	// Path is the walk from the region's costliest user function to Func.
	Path []int32
	// Cum is Func's inclusive cost in the region's stacks.
	Cum int64
	// Own is the part of Cum in Func itself and the library code it calls
	// directly (no user function below it).
	Own int64
	// Callees are the user functions below Func, with the cost charged to
	// each (their own code and the library code they call), costliest first.
	Callees []OwnerCallee
	// Library is the non-user function Func calls directly that carries
	// most of Own (-1 for none), and its cost.
	Library     int32
	LibraryCost int64
	// Stacks are the region's stacks (indices into the stack set): those
	// through Func that no costlier region holds.
	Stacks []int
}

// OwnerCallee is a user function under an owner and the cost charged to it.
type OwnerCallee struct {
	Func int32
	Cost int64
}

// userStacks is the user-code projection of a stackSet's stacks.
type userStacks struct {
	c     *Costs
	proj  [][]int32 // per stack: user frames, outermost first
	libAt []int32   // per stack: the non-user frame below its last user frame, or -1
}

// projectUser projects every stack with a value onto its user frames.
func projectUser(c *Costs, handlers requestFinder) *userStacks {
	s := c.set
	u := &userStacks{c: c, proj: make([][]int32, s.NumStacks()), libAt: make([]int32, s.NumStacks())}
	var buf []int32
	for si := 0; si < s.NumStacks(); si++ {
		u.libAt[si] = -1
		st := s.Stack(si)
		if s.Value(si, c.vi) == 0 || len(st) == 0 || c.importStack(st) || c.IsMeasuring(si) {
			continue // an import is start-up work, and measuring perflab's: no function owns them per request
		}
		top := len(st) - 1
		if handlers != nil {
			if h := handlers.handler(st); h >= 0 {
				top = h
			}
		}
		buf = buf[:0]
		last := -1
		for i := top; i >= 0; i-- {
			f := st[i]
			if !c.user[f] {
				continue
			}
			if c.owner[f] != "" {
				f, _ = c.blockMethod(st, i)
			}
			if n := len(buf); n == 0 || buf[n-1] != f {
				buf = append(buf, f)
			}
			last = i
		}
		if len(buf) == 0 {
			continue
		}
		u.proj[si] = append([]int32(nil), buf...)
		if last > 0 {
			u.libAt[si] = st[last-1]
		}
	}
	return u
}

// owners finds up to max regions of at least minShare of the total, in
// the stacks keep selects (nil: all).
func (u *userStacks) owners(max int, minShare float64, keep func(si int) bool) []Owner {
	c := u.c
	s := c.set
	n := len(s.Funcs)
	remaining := make([]bool, s.NumStacks())
	for si, p := range u.proj {
		remaining[si] = len(p) > 0 && (keep == nil || keep(si))
	}
	incl := make([]int64, n)
	seen := make([]int32, n)
	depth := make([]int, n)  // the outermost position a function has in the stacks
	entry := make([]bool, n) // roots found to fan out: entry points, not owners
	var out []Owner
	for round := 0; len(out) < max && round < max+n; round++ {
		for i := range incl {
			incl[i], seen[i], depth[i] = 0, -1, math.MaxInt
		}
		for si, p := range u.proj {
			if !remaining[si] {
				continue
			}
			v := s.Value(si, c.vi)
			for d, f := range p {
				if seen[f] != int32(si) {
					seen[f] = int32(si)
					incl[f] += v
					depth[f] = min(depth[f], d)
				}
			}
		}
		// The costliest function, the outermost among equals (a caller
		// whose whole cost is in one callee has the callee's cost).
		start := int32(-1)
		for fi := range incl {
			f := int32(fi)
			if entry[f] || incl[f] == 0 {
				continue
			}
			if start < 0 || incl[f] > incl[start] || incl[f] == incl[start] &&
				(depth[f] < depth[start] || depth[f] == depth[start] && s.Funcs[f].Name < s.Funcs[start].Name) {
				start = f
			}
		}
		if start < 0 || float64(incl[start]) < minShare*float64(c.total) {
			break
		}
		o := u.recursionEntry(u.walk(start, remaining, incl), remaining)
		if o.Func == start && u.fansOutFromRoot(start, remaining) {
			// A thread's entry, a serve loop, main: the outermost user
			// code, spreading its cost over what it calls. It owns
			// nothing; the regions below it are walked on their own.
			entry[start] = true
			continue
		}
		u.describe(&o, remaining)
		for si, p := range u.proj {
			if remaining[si] && indexOf(p, o.Func) >= 0 {
				remaining[si] = false
				o.Stacks = append(o.Stacks, si)
			}
		}
		out = append(out, o)
	}
	return out
}

// walk goes from start toward the callee holding most of the cost.
func (u *userStacks) walk(start int32, remaining []bool, incl []int64) Owner {
	s := u.c.set
	path := []int32{start}
	node := start
	for {
		child := map[int32]int64{}
		for si, p := range u.proj {
			if !remaining[si] {
				continue
			}
			if k := indexOf(p, node); k >= 0 && k+1 < len(p) {
				child[p[k+1]] += s.Value(si, u.c.vi)
			}
		}
		best, bv := int32(-1), int64(0)
		for f, v := range child {
			if v > bv || v == bv && best >= 0 && s.Funcs[f].Name < s.Funcs[best].Name {
				best, bv = f, v
			}
		}
		if best < 0 || 2*bv <= incl[node] {
			return Owner{Func: node, Path: path}
		}
		if indexOf(path, best) >= 0 {
			// Recursion: the walk came back to a function on its path,
			// the entry of the cycle.
			return Owner{Func: best, Path: path[:indexOf(path, best)+1]}
		}
		path = append(path, best)
		node = best
	}
}

// recursionEntry returns the owner of a region whose walk stopped inside a
// recursion. When one user function calls o.Func in most of o.Func's
// remaining stacks and is also called below it (Mash#initialize ->
// deep_update -> convert_value -> Mash#initialize), that caller is the
// recursion's entry and owns the cost: the walk finds it only when the
// recursive call holds most of the cost, and a sampler on a busy machine
// may catch most samples in the loop's own body, or tear a few stacks
// above it. A call back into the caller carrying under recursionMinShare
// of o.Func's cost (a stray or torn stack) is not a recursion.
func (u *userStacks) recursionEntry(o Owner, remaining []bool) Owner {
	s := u.c.set
	var total int64
	callers := map[int32]int64{}
	for si, p := range u.proj {
		if k := u.indexIn(si, o.Func, remaining); k >= 0 {
			v := s.Value(si, u.c.vi)
			total += v
			if k > 0 {
				callers[p[k-1]] += v
			}
		}
	}
	for f, v := range callers {
		if 2*v <= total {
			continue
		}
		var again int64 // o.Func's cost in stacks that call f again below it
		for si, p := range u.proj {
			if k := u.indexIn(si, o.Func, remaining); k >= 0 && indexOf(p[k+1:], f) >= 0 {
				again += s.Value(si, u.c.vi)
			}
		}
		if float64(again) >= recursionMinShare*float64(total) {
			return Owner{Func: f, Path: append(o.Path, f)}
		}
	}
	return o
}

// indexIn returns f's first index in stack si's projection, or -1 when the
// stack is not remaining or lacks f.
func (u *userStacks) indexIn(si int, f int32, remaining []bool) int {
	if !remaining[si] {
		return -1
	}
	return indexOf(u.proj[si], f)
}

// recursionMinShare is the least share of a function's cost in stacks that
// call back into it through its caller for the two to be a recursion.
const recursionMinShare = 0.05

// fansOutFromRoot reports whether f is the outermost user frame of every
// remaining stack it is in, and calls user code in some of them.
func (u *userStacks) fansOutFromRoot(f int32, remaining []bool) bool {
	calls := false
	for si, p := range u.proj {
		if !remaining[si] {
			continue
		}
		switch indexOf(p, f) {
		case -1:
		case 0:
			calls = calls || len(p) > 1
		default:
			return false
		}
	}
	return calls
}

// describe fills an owner's costs and callees over the remaining stacks.
func (u *userStacks) describe(o *Owner, remaining []bool) {
	s := u.c.set
	callee := map[int32]int64{}
	lib := map[int32]int64{}
	for si, p := range u.proj {
		if !remaining[si] {
			continue
		}
		k := indexOf(p, o.Func)
		if k < 0 {
			continue
		}
		v := s.Value(si, u.c.vi)
		o.Cum += v
		last := p[len(p)-1]
		switch {
		case last != o.Func:
			callee[last] += v
		default:
			o.Own += v
			if l := u.libAt[si]; l >= 0 && k == len(p)-1 {
				lib[l] += v
			}
		}
	}
	for f, v := range callee {
		o.Callees = append(o.Callees, OwnerCallee{f, v})
	}
	sort.Slice(o.Callees, func(i, j int) bool {
		a, b := o.Callees[i], o.Callees[j]
		if a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		return s.Funcs[a.Func].Name < s.Funcs[b.Func].Name
	})
	o.Library = -1
	for f, v := range lib {
		if v > o.LibraryCost || v == o.LibraryCost && o.Library >= 0 && s.Funcs[f].Name < s.Funcs[o.Library].Name {
			o.Library, o.LibraryCost = f, v
		}
	}
}

// indexOf returns the first index of f in p, or -1.
func indexOf(p []int32, f int32) int {
	for i, x := range p {
		if x == f {
			return i
		}
	}
	return -1
}
