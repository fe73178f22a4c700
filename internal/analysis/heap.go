package analysis

import (
	"perflab/internal/stacks"
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// HeapDelta compares two in-use heap profiles (taken after a forced
// collection at the start and end of a window) by allocation site: the
// growth of in-use bytes in total, and the user functions (charged with the
// library code that allocated for them) whose in-use bytes grew most, per
// request and per second; from and to are the in-use bytes at both ends.
// ok is false when either profile lacks inuse_space.
func HeapDelta(start, end *profile.Profile, requests int64, seconds float64, n int, uc UserCode) (from, to int64, sites []runfmt.HeapSite, ok bool) {
	a, aok := inuseByUser(start, uc)
	b, bok := inuseByUser(end, uc)
	if !aok || !bok {
		return 0, 0, nil, false
	}
	from, to = a[""], b[""]
	grew := to - from
	type kv struct {
		fn string
		d  int64
	}
	var ds []kv
	for fn, v := range b {
		if d := v - a[fn]; fn != "" && d > 0 {
			ds = append(ds, kv{fn, d})
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].d != ds[j].d {
			return ds[i].d > ds[j].d
		}
		return ds[i].fn < ds[j].fn
	})
	for i, x := range ds {
		if i == n || grew > 0 && float64(x.d) < 0.05*float64(grew) {
			break
		}
		s := runfmt.HeapSite{Function: x.fn}
		if requests > 0 {
			s.BytesPerRequest = float64(x.d) / float64(requests)
		}
		if seconds > 0 {
			s.MiBPerS = float64(x.d) / seconds / (1 << 20)
		}
		sites = append(sites, s)
	}
	return from, to, sites, true
}

// inuseByUser is a heap profile's in-use bytes charged to user functions,
// with the total under "".
func inuseByUser(p *profile.Profile, uc UserCode) (map[string]int64, bool) {
	if p == nil {
		return nil, false
	}
	s := stacks.FromProfile(p)
	vi, err := s.SampleIndex("inuse_space")
	if err != nil {
		return nil, false
	}
	c := NewCosts(s, vi, uc, nil)
	out := map[string]int64{"": c.total}
	for f, v := range c.charg {
		if c.user[f] && v > 0 {
			out[s.Funcs[f].Name] += v
		}
	}
	return out, true
}
