package analysis

import (
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
)

// AllocSite is a user function and what it allocates per request: the
// bytes and objects charged to it (its own allocations and those of the
// library and runtime code it calls), and the call under it that
// allocates most of them.
type AllocSite struct {
	Function, File string
	// Callee is the call under it that allocates at least half of its
	// bytes ("" when none does, or when that is the runtime's allocator
	// itself: the function's own make or new).
	Callee                             string
	BytesPerRequest, ObjectsPerRequest float64
}

// AllocSites are the n user functions (by uc) that allocate the most
// bytes per request in an allocation profile, most first, and the bytes
// every stack of the profile allocated per request; none without
// requests or an alloc_space sample type.
func AllocSites(allocs *profile.Profile, requests int64, n int, uc UserCode) (sites []AllocSite, totalPerRequest float64) {
	if allocs == nil || requests <= 0 {
		return nil, 0
	}
	s := stacks.FromProfile(allocs)
	bi, err := s.SampleIndex("alloc_space")
	if err != nil {
		return nil, 0
	}
	bytes := NewCosts(s, bi, uc, nil)
	var objs *Costs
	if oi, err := s.SampleIndex("alloc_objects"); err == nil {
		objs = NewCosts(s, oi, uc, nil)
	}
	per := func(v int64) float64 { return float64(v) / float64(requests) }
	for _, f := range bytes.Ranked(true, n) {
		a := AllocSite{Function: s.Funcs[f].Name, File: s.Funcs[f].File, BytesPerRequest: per(bytes.charg[f])}
		if callee, v := bytes.TopCallee(f); callee >= 0 && 2*v >= bytes.charg[f] && !strings.HasPrefix(s.Funcs[callee].Name, "runtime.") {
			a.Callee = s.Funcs[callee].Name
		}
		if objs != nil {
			a.ObjectsPerRequest = per(objs.charg[f])
		}
		sites = append(sites, a)
	}
	return sites, per(bytes.total)
}
