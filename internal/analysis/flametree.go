package analysis

import (
	"sort"
)

// flameTree is the call tree of one or two profiles: each node a function
// called along one path from the root, with the cost of its subtree.
type flameTree struct {
	names   []string
	user    []bool
	nameIdx map[string]int32
	name    []int32
	val     [2][]int64 // [0] new (or the only profile), [1] base
	kids    map[uint64]int32
	child   [][]int32
	isDiff  bool
}

func newFlameTree(diff bool) *flameTree {
	t := &flameTree{nameIdx: map[string]int32{}, kids: map[uint64]int32{}, isDiff: diff}
	t.node(-1, t.intern("root", false))
	return t
}

func (t *flameTree) intern(name string, user bool) int32 {
	if i, ok := t.nameIdx[name]; ok {
		return i
	}
	i := int32(len(t.names))
	t.names = append(t.names, name)
	t.user = append(t.user, user)
	t.nameIdx[name] = i
	return i
}

// node returns the child of parent named name, creating it.
func (t *flameTree) node(parent, name int32) int32 {
	key := uint64(uint32(parent))<<32 | uint64(uint32(name))
	if i, ok := t.kids[key]; ok {
		return i
	}
	i := int32(len(t.name))
	t.name = append(t.name, name)
	t.val[0] = append(t.val[0], 0)
	t.val[1] = append(t.val[1], 0)
	t.child = append(t.child, nil)
	if parent >= 0 {
		t.child[parent] = append(t.child[parent], i)
	}
	t.kids[key] = i
	return i
}

// add adds the stacks of s (sample type vi) to side 0 (new) or 1 (base).
func (t *flameTree) add(s *stackSet, vi, side int, uc UserCode) {
	fn := make([]int32, len(s.funcs))
	for i, f := range s.funcs {
		fn[i] = t.intern(f.Name, uc.IsUser(f.Name, f.File))
	}
	for si := 0; si < s.numStacks(); si++ {
		v := s.value(si, vi)
		if v == 0 {
			continue
		}
		n := int32(0)
		t.val[side][0] += v
		st := s.stack(si)
		for i := len(st) - 1; i >= 0; i-- {
			n = t.node(n, fn[st[i]])
			t.val[side][n] += v
		}
	}
}

// flatten writes the tree in preorder, children by name, as groups of
// (name index, value..., child count), dropping subtrees whose weight (as
// given by keep) is too small; their cost stays in the parent's value. It
// returns the encoded nodes and the number of dropped nodes.
func (t *flameTree) flatten(keep func(n int32) bool) (out []int64, pruned int) {
	var walk func(n int32)
	walk = func(n int32) {
		kids := t.child[n][:0:0]
		for _, c := range t.child[n] {
			if keep(c) {
				kids = append(kids, c)
			} else {
				pruned += t.subtreeSize(c)
			}
		}
		sort.Slice(kids, func(i, j int) bool { return t.names[t.name[kids[i]]] < t.names[t.name[kids[j]]] })
		out = append(out, int64(t.name[n]), t.val[0][n])
		if t.diff() {
			out = append(out, t.val[1][n])
		}
		out = append(out, int64(len(kids)))
		for _, c := range kids {
			walk(c)
		}
	}
	walk(0)
	return out, pruned
}

func (t *flameTree) diff() bool { return t.isDiff }

func (t *flameTree) subtreeSize(n int32) int {
	size := 1
	for _, c := range t.child[n] {
		size += t.subtreeSize(c)
	}
	return size
}
