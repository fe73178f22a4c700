package stacks

import (
	"regexp"
	"slices"
	"strings"
)

// A profile's drop_frames and keep_frames (profile.proto) name functions
// whose cost belongs to their caller: samples are cut at the outermost
// frame that matches drop_frames and not keep_frames, so that frame and
// everything it called are charged to the frame above (C++ profiles drop
// malloc and operator new this way). pprof applies them whenever it reads
// a profile (Profile.RemoveUninteresting); so does perflab. The rules are
// profile.Profile.Prune's, rewritten here because the lean decoder works on
// raw locations, not on *profile.Profile: pruner.location is its per
// location part and pruneStack its per sample part.

// pruneState says how drop_frames affects one location.
type pruneState uint8

const (
	keepAll       pruneState = iota
	pruneWhole               // its outermost frame matches: the location goes
	pruneInnerOff            // an inner frame matches: that frame and those inside it go
)

// pruner matches function names against drop_frames and keep_frames.
type pruner struct {
	drop, keep *regexp.Regexp
	cache      map[string]bool
}

// newPruner compiles the profile's patterns; nil when there is nothing to
// drop or the pattern does not compile (pprof then drops nothing either).
func newPruner(drop, keep string) *pruner {
	if drop == "" {
		return nil
	}
	dr, err := regexp.Compile("^(" + drop + ")$")
	if err != nil {
		return nil
	}
	p := &pruner{drop: dr, cache: map[string]bool{}}
	if keep != "" {
		if p.keep, err = regexp.Compile("^(" + keep + ")$"); err != nil {
			return nil
		}
	}
	return p
}

// match reports whether the frame of function name is dropped.
func (p *pruner) match(name string) bool {
	if name == "" {
		return false
	}
	if v, ok := p.cache[name]; ok {
		return v
	}
	fn := simplifyFuncName(name)
	v := p.drop.MatchString(fn) && (p.keep == nil || !p.keep.MatchString(fn))
	p.cache[name] = v
	return v
}

// location looks at a location's frames (innermost first) from the
// outermost in, and returns the index of the first frame it keeps and its
// state.
func (p *pruner) location(names []string) (int, pruneState) {
	for i := len(names) - 1; i >= 0; i-- {
		if p.match(names[i]) {
			if i == len(names)-1 {
				return 0, pruneWhole
			}
			return i + 1, pruneInnerOff
		}
	}
	return 0, keepAll
}

// pruneStack returns the part [lo, hi) of a sample's locations (leaf
// first) that stays: scanning from the root, frames before the first one
// that is not pruned are kept (so that nothing is pruned away entirely),
// and the stack is cut at the first pruned location after it.
func pruneStack(states []pruneState) (int, int) {
	found := false
	for i := len(states) - 1; i >= 0; i-- {
		switch st := states[i]; {
		case st == keepAll:
			found = true
		case !found:
		case st == pruneWhole:
			return i + 1, len(states)
		default:
			return i, len(states)
		}
	}
	return 0, len(states)
}

// reservedNames contain "(" yet are part of a C++ function's name.
var reservedNames = []string{"(anonymous namespace)", "operator()"}

// simplifyFuncName strips a C++ argument list, as pprof does before
// matching drop_frames: "foo(int)" -> "foo", "(anonymous namespace)::f()" ->
// "(anonymous namespace)::f".
func simplifyFuncName(f string) string {
	f = strings.TrimPrefix(f, ".")
	for i := 0; i < len(f); i++ {
		if r := slices.IndexFunc(reservedNames, func(r string) bool { return strings.HasPrefix(f[i:], r) }); r >= 0 {
			i += len(reservedNames[r]) - 1
			continue
		}
		if f[i] == '(' {
			return f[:i]
		}
	}
	return f
}
