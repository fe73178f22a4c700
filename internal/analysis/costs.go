package analysis

import (
	"cmp"
	"maps"
	"slices"

	"perflab/internal/stacks"
)

// The accessors of Costs, for the rules that read a profile's costs
// (package findings); inside this package the fields are read directly.

// Set is the stack set the costs were computed over.
func (c *Costs) Set() *stacks.Set { return c.set }

// SampleIndex is the sample type the costs are of.
func (c *Costs) SampleIndex() int { return c.vi }

// Total is the cost of every stack, selected or not, perflab's measuring
// included (Measured).
func (c *Costs) Total() int64 { return c.total }

// Name is function f's name.
func (c *Costs) Name(f int32) string { return c.set.Funcs[f].Name }

// User says function f is user code.
func (c *Costs) User(f int32) bool { return c.user[f] }

// Flat is the cost of the selected stacks where f is the leaf.
func (c *Costs) Flat(f int32) int64 { return c.flat[f] }

// Cum is the cost of the selected stacks through f (counted once).
func (c *Costs) Cum(f int32) int64 { return c.cum[f] }

// Charged is f's cost under attribution: its own flat cost and the
// library and runtime cost charged to it, imports left out (Importing).
func (c *Costs) Charged(f int32) int64 { return c.charg[f] }

// ChargedTo is the function stack si's cost is charged to (see Charged);
// -1 for a stack charged to none.
func (c *Costs) ChargedTo(si int) int32 { return c.chargedTo[si] }

// Owners are the user functions that own the most cost (see owner.go),
// up to n of them with at least minShare of the total each.
func (c *Costs) Owners(n int, minShare float64) []Owner {
	return projectUser(c, newHandlerFinder(c)).owners(n, minShare, nil)
}

// ByCost returns the functions of m (their costs) by descending cost,
// then index.
func ByCost(m map[int32]int64) []int32 {
	ks := slices.Collect(maps.Keys(m))
	slices.SortFunc(ks, func(a, b int32) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	return ks
}
