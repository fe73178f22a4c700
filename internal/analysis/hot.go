package analysis

import (
	"perflab/internal/stacks"
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// HotFor lists the hot functions of a CPU profile for run.json: up to n
// user functions (by uc: the default rule, a project root, --user-code)
// ranked by their attributed cost (own CPU plus the standard-library and
// runtime CPU they called, AttributedFrom naming the biggest such callee,
// LibraryFunc the library function holding most of it: LibraryHolder),
// followed by up to n standard-library and runtime functions ranked by flat
// CPU, with user_code false. Per-request figures are zero when requests <= 0.
func HotFor(cpu *profile.Profile, requests int64, n int, uc UserCode) []runfmt.HotFunc {
	if cpu == nil {
		return nil
	}
	s := stacks.FromProfile(cpu)
	vi, err := s.SampleIndex("")
	if err != nil {
		return nil
	}
	c := NewCosts(s, vi, uc, nil)
	toUs := TimeToMicros(s.SampleTypes[vi].Unit, s.Period, s.PeriodType.Unit)
	per := func(v int64) float64 {
		if requests <= 0 {
			return 0
		}
		return float64(v) * toUs / float64(requests)
	}
	var out []runfmt.HotFunc
	for _, f := range c.Ranked(true, n) {
		h := c.hotFunc(f, per)
		// Its own code as charged (imports left out), and what it called.
		h.CPUUsPerRequest, h.AttributedUsReq = per(c.charg[f]-c.attr[f]), per(c.attr[f])
		if callee, _ := c.TopCallee(f); callee >= 0 {
			h.AttributedSample = s.Funcs[callee].Name
		}
		if lib, v := c.TopLibrary(f); lib != "" {
			h.Library, h.LibraryUsPerRequest = lib, per(v)
		}
		if lh := c.LibraryHolder(f); lh.Func >= 0 && lh.Func != lh.Entry && 2*lh.Cost > c.charg[f] {
			fi := s.Funcs[lh.Func]
			h.LibraryFunc = &runfmt.LibraryFunc{Function: fi.Name, File: fi.File, UsPerRequest: per(lh.Cost)}
		}
		h.DatabaseUsPerRequest = per(c.Database(f))
		out = append(out, h)
	}
	for _, f := range c.Ranked(false, n) {
		out = append(out, c.hotFunc(f, per))
	}
	return out
}

func (c *Costs) hotFunc(f int32, per func(int64) float64) runfmt.HotFunc {
	fi := c.set.Funcs[f]
	return runfmt.HotFunc{
		Function: fi.Name, File: fi.File, UserCode: c.user[f],
		FlatPct: Pct(c.flat[f], c.total), CumPct: Pct(c.cum[f], c.total),
		CPUUsPerRequest: per(c.flat[f]), CumUsPerRequest: per(c.cum[f]),
	}
}

// Ranked returns up to n functions: user functions by charged cost, or
// non-user functions by flat cost, skipping zero costs.
func (c *Costs) Ranked(user bool, n int) []int32 {
	key := c.flat
	if user {
		key = c.charg
	}
	var fs []int32
	for f := range c.set.Funcs {
		if c.user[f] == user && key[f] > 0 {
			fs = append(fs, int32(f))
		}
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if key[a] != key[b] {
			return key[a] > key[b]
		}
		return c.set.Funcs[a].Name < c.set.Funcs[b].Name
	})
	if n > 0 && len(fs) > n {
		fs = fs[:n]
	}
	return fs
}

// TimeToMicros is the factor from sample values to microseconds: the sample
// unit when it is a time, else the period (a "samples/count" profile taken
// every 10ms counts 10ms per sample).
func TimeToMicros(unit string, period int64, periodUnit string) float64 {
	if f, ok := nanosPer(unit); ok {
		return f / 1e3
	}
	if f, ok := nanosPer(periodUnit); ok && period > 0 {
		return f * float64(period) / 1e3
	}
	return 1
}

func nanosPer(unit string) (float64, bool) {
	switch unit {
	case "nanoseconds", "ns":
		return 1, true
	case "microseconds", "us":
		return 1e3, true
	case "milliseconds", "ms":
		return 1e6, true
	case "seconds", "s":
		return 1e9, true
	}
	return 0, false
}

// AllocTopFor lists allocating functions for run.json: user functions (by
// uc: the default rule, a project root, --user-code) with the allocations of
// the standard-library and runtime code they called charged to them, then
// non-user allocation sites, each with bytes and objects per request. It
// reads the alloc_space and alloc_objects sample types (falling back to the
// default type for bytes). Up to n of each kind.
func AllocTopFor(allocs *profile.Profile, requests int64, n int, uc UserCode) []runfmt.AllocFunc {
	if allocs == nil {
		return nil
	}
	s := stacks.FromProfile(allocs)
	bi, err := s.SampleIndex("alloc_space")
	if err != nil {
		if bi, err = s.SampleIndex(""); err != nil {
			return nil
		}
	}
	bytes := NewCosts(s, bi, uc, nil)
	var objs *Costs
	if oi, err := s.SampleIndex("alloc_objects"); err == nil {
		objs = NewCosts(s, oi, uc, nil)
	}
	per := func(v int64) float64 {
		if requests <= 0 {
			return 0
		}
		return float64(v) / float64(requests)
	}
	var out []runfmt.AllocFunc
	for _, user := range []bool{true, false} {
		for _, f := range bytes.Ranked(user, n) {
			key := bytes.flat
			if user {
				key = bytes.charg
			}
			a := runfmt.AllocFunc{Function: s.Funcs[f].Name, UserCode: user, BytesPerRequest: per(key[f]), CumBytesPerReq: per(bytes.cum[f])}
			if objs != nil {
				okey := objs.flat
				if user {
					okey = objs.charg
				}
				a.ObjectsPerRequest = per(okey[f])
			}
			out = append(out, a)
		}
	}
	return out
}
