package analysis

import (
	"slices"
	"sort"

	"perflab/internal/ownership"
	"perflab/internal/stacks"
)

// The flame graph's call tree is built without a tree of maps (one map
// entry per node: a profile of 700k distinct stacks has millions of nodes,
// of which a few thousand are drawn): see flameBuilder.

// flameTree is the pruned call tree in preorder.
type flameTree struct {
	names []string // frame names, by name id
	user  []bool
	name  []int32 // per node: name id
	val   [2][]int64
	kids  []int32
	// pruned counts the subtrees left out, their cost in their parents.
	pruned int
	diff   bool
	// flat is each name's own (leaf) cost per side, perflab's measuring
	// left out, for a diff's list of gains and losses; indexed like names
	// before remapping (see buildFlame).
	flat [2][]int64
}

// flameSide is one profile of a flame graph: its stacks, the sample type
// to read and the weight of one unit (1 / requests in a diff, 1 otherwise).
type flameSide struct {
	set    *stacks.Set
	vi     int
	weight float64
}

// flameStack is one stack of one side in the sort.
type flameStack struct {
	side  int8
	stack int32
	val   int64
}

// buildFlame builds the tree of sides (one, or new then base), dropping
// nodes whose weight (the largest of the sides' weighted values) is below
// minFraction of the root's.
func buildFlame(sides []flameSide, uc UserCode, minFraction float64) *flameTree {
	// Frame names: one id per distinct name over both sides, ranked by name.
	nameID := map[string]int32{}
	var names []string
	var user []bool
	fid := make([][]int32, len(sides)) // per side: function index -> name id
	for k, sd := range sides {
		fid[k] = make([]int32, len(sd.set.Funcs))
		for i, f := range sd.set.Funcs {
			id, ok := nameID[f.Name]
			if !ok {
				id = int32(len(names))
				nameID[f.Name] = id
				names = append(names, f.Name)
				user = append(user, uc.IsUser(f.Name, f.File))
			}
			fid[k][i] = id
		}
	}
	byName := make([]int32, len(names))
	for i := range byName {
		byName[i] = int32(i)
	}
	sort.Slice(byName, func(i, j int) bool { return names[byName[i]] < names[byName[j]] })
	rank := make([]int32, len(names))
	for r, id := range byName {
		rank[id] = int32(r)
	}
	// Per side, function index -> rank, and the stacks with a value.
	frank := make([][]int32, len(sides))
	// A name that is perflab's measuring (ownership.IsGoMeasuring): its
	// stacks are drawn, but they are no function's own cost, so no
	// function of them is listed among a diff's changes.
	measuring := make([]bool, len(names))
	for id, name := range names {
		measuring[id] = ownership.IsGoMeasuring(name)
	}
	var stacks []flameStack
	var total [2]int64
	flat := [2][]int64{make([]int64, len(names)), make([]int64, len(names))}
	for k, sd := range sides {
		frank[k] = make([]int32, len(fid[k]))
		for i, id := range fid[k] {
			frank[k][i] = rank[id]
		}
		for si := 0; si < sd.set.NumStacks(); si++ {
			if v := sd.set.Value(si, sd.vi); v != 0 {
				stacks = append(stacks, flameStack{side: int8(k), stack: int32(si), val: v})
				total[k] += v
				st := sd.set.Stack(si)
				if len(st) > 0 && !slices.ContainsFunc(st, func(f int32) bool { return measuring[fid[k][f]] }) {
					flat[k][fid[k][st[0]]] += v
				}
			}
		}
	}
	b := &flameBuilder{sides: sides, frank: frank, byName: byName, threshold: minFraction}
	for k := range sides {
		b.rootWeight = max(b.rootWeight, float64(total[k])*sides[k].weight)
	}
	b.t.names, b.t.user, b.t.flat, b.t.diff = names, user, flat, len(sides) > 1
	b.node(-1, total)
	b.children(0, stacks, 0)
	return &b.t
}

// flameBuilder builds the tree top-down: the stacks under a node, which
// share its path from the root, are sorted by their next frame, each run of
// equal frames becoming a child (in name order, as the frames are ranked by
// name); a child too light to draw is not descended into, so the work
// follows the nodes drawn rather than the distinct stacks.
type flameBuilder struct {
	sides      []flameSide
	frank      [][]int32 // per side: function index -> rank of its name
	byName     []int32   // rank -> name id
	t          flameTree
	threshold  float64 // a fraction of rootWeight; < 0 keeps every node
	rootWeight float64
	keys       []uint64 // scratch: (next frame's rank + 1) << 32 | position
	tmp        []flameStack
}

// node appends a node in preorder and returns its index.
func (b *flameBuilder) node(name int32, val [2]int64) int32 {
	t := &b.t
	t.name = append(t.name, name)
	t.val[0] = append(t.val[0], val[0])
	t.val[1] = append(t.val[1], val[1])
	t.kids = append(t.kids, 0)
	return int32(len(t.name) - 1)
}

// next is the rank of the frame at depth d from the root of s, or -1 when
// s ends above d.
func (b *flameBuilder) next(s flameStack, d int) int32 {
	st := b.sides[s.side].set.Stack(int(s.stack))
	if d >= len(st) {
		return -1
	}
	return b.frank[s.side][st[len(st)-1-d]]
}

// children adds the children of node parent, whose stacks are stacks (all
// at least d frames deep and equal to depth d), in preorder.
func (b *flameBuilder) children(parent int32, stacks []flameStack, d int) {
	b.sortByNext(stacks, d)
	for lo := 0; lo < len(stacks); {
		key := b.next(stacks[lo], d)
		hi := lo + 1
		for hi < len(stacks) && b.next(stacks[hi], d) == key {
			hi++
		}
		group := stacks[lo:hi]
		lo = hi
		if key < 0 {
			continue // stacks that end at parent: its own cost
		}
		var val [2]int64
		for _, s := range group {
			val[s.side] += s.val
		}
		if !b.heavy(val) {
			b.t.pruned++
			continue
		}
		b.t.kids[parent]++
		n := b.node(b.byName[key], val)
		b.children(n, group, d+1)
	}
}

// heavy says whether a node of these values is drawn: its weight (the
// larger of the sides' weighted values) is at least the threshold's share
// of the root's.
func (b *flameBuilder) heavy(val [2]int64) bool {
	if b.threshold < 0 {
		return true
	}
	w := 0.0
	for k, sd := range b.sides {
		w = max(w, float64(val[k])*sd.weight)
	}
	return b.rootWeight > 0 && w >= b.threshold*b.rootWeight
}

// sortByNext sorts stacks by their frame at depth d (stacks that end first).
func (b *flameBuilder) sortByNext(stacks []flameStack, d int) {
	if len(stacks) < 2 {
		return
	}
	b.keys = b.keys[:0]
	sorted := true
	prev := int32(-2)
	for i, s := range stacks {
		k := b.next(s, d)
		sorted = sorted && k >= prev
		prev = k
		b.keys = append(b.keys, uint64(uint32(k+1))<<32|uint64(i))
	}
	if sorted {
		return
	}
	slices.Sort(b.keys)
	b.tmp = append(b.tmp[:0], stacks...)
	for i, k := range b.keys {
		stacks[i] = b.tmp[uint32(k)]
	}
}
