package analysis

import (
	"math"
	"sort"

	"github.com/google/pprof/profile"
)

// FuncDelta is one function's cost in two profiles, per request, in the
// sample unit (ns, bytes).
type FuncDelta struct {
	Function string
	// Base, New and Delta are flat cost per request; DeltaPct is Delta
	// relative to Base (+Inf when the function is new).
	Base, New, Delta float64
	DeltaPct         float64
	// BaseCum and NewCum are cumulative cost per request.
	BaseCum, NewCum float64
	User            bool
}

// Deltas compares per-request flat and cumulative cost function by function,
// sorted by |Delta| (then |cumulative delta|). sampleIndex selects the
// sample type in both profiles ("" for each one's default). Requests <= 0
// count as 1. Nil profiles count as empty.
func Deltas(base, new *profile.Profile, baseRequests, newRequests int64, sampleIndex string) []FuncDelta {
	bf, bc, bu := funcCosts(base, sampleIndex)
	nf, nc, nu := funcCosts(new, sampleIndex)
	br, nr := float64(max(baseRequests, 1)), float64(max(newRequests, 1))
	var out []FuncDelta
	add := func(name string, user bool) {
		d := FuncDelta{Function: name, User: user,
			Base: float64(bf[name]) / br, New: float64(nf[name]) / nr,
			BaseCum: float64(bc[name]) / br, NewCum: float64(nc[name]) / nr}
		d.Delta = d.New - d.Base
		switch {
		case d.Base != 0:
			d.DeltaPct = 100 * d.Delta / d.Base
		case d.New != 0:
			d.DeltaPct = math.Inf(1)
		}
		out = append(out, d)
	}
	for name := range bc {
		add(name, bu[name])
	}
	for name := range nc {
		if _, ok := bc[name]; !ok {
			add(name, nu[name])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if x, y := math.Abs(a.Delta), math.Abs(b.Delta); x != y {
			return x > y
		}
		if x, y := math.Abs(a.NewCum-a.BaseCum), math.Abs(b.NewCum-b.BaseCum); x != y {
			return x > y
		}
		return a.Function < b.Function
	})
	return out
}

// funcCosts returns flat and cum cost and user flag by function name.
func funcCosts(p *profile.Profile, sampleIndex string) (flat, cum map[string]int64, user map[string]bool) {
	flat, cum, user = map[string]int64{}, map[string]int64{}, map[string]bool{}
	if p == nil {
		return
	}
	s := fromProfile(p)
	vi, err := s.sampleIndex(sampleIndex)
	if err != nil {
		return
	}
	c := computeCosts(s, vi, UserCode{}, nil)
	for f, fi := range s.funcs {
		if c.cum[f] == 0 && c.flat[f] == 0 {
			continue
		}
		flat[fi.Name], cum[fi.Name], user[fi.Name] = c.flat[f], c.cum[f], c.user[f]
	}
	return
}
