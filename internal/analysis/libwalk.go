package analysis

import (
	"perflab/internal/ownership"
)

// The library function that holds a cost. Attribution charges library
// code to the nearest user function above it, and the frame right under
// that function is the library's entry: often a frame that only passes
// the call on (a descriptor's __get__, a decorator's wrapper, a __call__,
// a dispatcher, an exported function calling its implementation), not
// where the time goes. Under a user function, the walk starts at its
// costliest entry and goes down the library frames while one callee
// holds most (more than half) of the entry's cost, as the owner walk
// (owner.go) goes down user code. It stops where the cost fans out over
// several callees or stays in the function, at a function already on the
// walk (the recursion's entry holds its cost), and before the runtime (an interpreter, a
// VM, the Go runtime, the kernel: no library function). The function it
// stops at holds the cost: the place in the library to read, with the
// line its cost goes through (LineRequest.Via).

// LibraryHold is where the library code a user function calls spends
// its cost.
type LibraryHold struct {
	// Entry is the library (or runtime) function the user function calls
	// directly that carries the most of its cost, and EntryCost that cost;
	// -1 and 0 when it calls none.
	Entry     int32
	EntryCost int64
	// Func is the library function the walk stopped at, holding Cost of
	// the entry's cost: the entry itself, or a library function below
	// it; -1 when the entry is the runtime's.
	Func int32
	Cost int64
	// Path is the walk from Entry down to Func, both included.
	Path []int32
}

// walkable says the walk goes through a frame of class k: a dependency's
// or the standard library's code, not the runtime's or an unknown frame.
func walkable(k ownership.Kind) bool { return k == ownership.Dependency || k == ownership.Std }

// LibraryHolder walks down the library code under user function f (see
// above) over the stacks charged to f and says which library function
// holds its cost.
func (c *Costs) LibraryHolder(f int32) LibraryHold {
	// below is a stack through the walk so far and the index of its
	// next frame down (-1: the walk's last frame is its leaf).
	type below struct{ si, at int }
	var under []below
	for si, to := range c.chargedTo {
		if to != f {
			continue
		}
		if k := c.nearestUser(c.set.Stack(si)); k > 0 {
			under = append(under, below{si, k - 1})
		}
	}
	h := LibraryHold{Entry: -1, Func: -1}
	var costs []int64 // per function of the path, its cost
	for len(under) > 0 {
		cost := map[int32]int64{}
		for _, b := range under {
			if b.at >= 0 {
				cost[c.set.Stack(b.si)[b.at]] += c.set.Value(b.si, c.vi)
			}
		}
		next, v := c.costliest(cost)
		switch {
		case next < 0:
			return h
		case h.Entry < 0:
			h.Entry, h.EntryCost = next, v
			if !walkable(c.cls[next].Kind) {
				return h // the runtime's: no library function holds it
			}
		case 2*v <= h.EntryCost || !walkable(c.cls[next].Kind):
			return h
		case indexOf(h.Path, next) >= 0:
			// A recursion: the function it came back to, its entry,
			// holds the cost.
			k := indexOf(h.Path, next)
			h.Func, h.Cost, h.Path = next, costs[k], h.Path[:k+1]
			return h
		}
		h.Func, h.Cost, h.Path = next, v, append(h.Path, next)
		costs = append(costs, v)
		kept := under[:0]
		for _, b := range under {
			if b.at >= 0 && c.set.Stack(b.si)[b.at] == next {
				kept = append(kept, below{b.si, b.at - 1})
			}
		}
		under = kept
	}
	return h
}

// nearestUser is the index of st's user frame nearest its leaf, -1 for
// none.
func (c *Costs) nearestUser(st []int32) int {
	for i, f := range st {
		if c.user[f] {
			return i
		}
	}
	return -1
}

// costliest is the function of m with the most cost (by name among
// equals, so that a run's order of functions does not decide), and that
// cost; -1 for an empty m.
func (c *Costs) costliest(m map[int32]int64) (int32, int64) {
	best, bv := int32(-1), int64(0)
	for f, v := range m {
		if best < 0 || v > bv || v == bv && c.set.Funcs[f].Name < c.set.Funcs[best].Name {
			best, bv = f, v
		}
	}
	return best, bv
}
