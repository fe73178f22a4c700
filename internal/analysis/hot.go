package analysis

import (
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// HotFor lists the hot functions of a CPU profile for run.json: up to n
// user functions (by uc: the default rule, a project root, --user-code)
// ranked by their attributed cost (own CPU plus the standard-library and
// runtime CPU they called, AttributedFrom naming the biggest such callee),
// followed by up to n standard-library and runtime functions ranked by flat
// CPU, with user_code false. Per-request figures are zero when requests <= 0.
func HotFor(cpu *profile.Profile, requests int64, n int, uc UserCode) []runfmt.HotFunc {
	if cpu == nil {
		return nil
	}
	s := fromProfile(cpu)
	vi, err := s.sampleIndex("")
	if err != nil {
		return nil
	}
	c := computeCosts(s, vi, uc, nil)
	toUs := timeToMicros(s.sampleTypes[vi].Unit, s.period, s.periodType.Unit)
	per := func(v int64) float64 {
		if requests <= 0 {
			return 0
		}
		return float64(v) * toUs / float64(requests)
	}
	var out []runfmt.HotFunc
	for _, f := range c.ranked(true, n) {
		h := c.hotFunc(f, per)
		h.AttributedUsReq = per(c.attr[f])
		if callee, _ := c.topCallee(f); callee >= 0 {
			h.AttributedSample = s.funcs[callee].Name
		}
		out = append(out, h)
	}
	for _, f := range c.ranked(false, n) {
		out = append(out, c.hotFunc(f, per))
	}
	return out
}

func (c *costs) hotFunc(f int32, per func(int64) float64) runfmt.HotFunc {
	fi := c.set.funcs[f]
	return runfmt.HotFunc{
		Function: fi.Name, File: fi.File, UserCode: c.user[f],
		FlatPct: pct(c.flat[f], c.total), CumPct: pct(c.cum[f], c.total),
		CPUUsPerRequest: per(c.flat[f]), CumUsPerRequest: per(c.cum[f]),
	}
}

// ranked returns up to n functions: user functions by charged cost, or
// non-user functions by flat cost, skipping zero costs.
func (c *costs) ranked(user bool, n int) []int32 {
	key := c.flat
	if user {
		key = c.charg
	}
	var fs []int32
	for f := range c.set.funcs {
		if c.user[f] == user && key[f] > 0 {
			fs = append(fs, int32(f))
		}
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if key[a] != key[b] {
			return key[a] > key[b]
		}
		return c.set.funcs[a].Name < c.set.funcs[b].Name
	})
	if n > 0 && len(fs) > n {
		fs = fs[:n]
	}
	return fs
}

// timeToMicros is the factor from sample values to microseconds: the sample
// unit when it is a time, else the period (a "samples/count" profile taken
// every 10ms counts 10ms per sample).
func timeToMicros(unit string, period int64, periodUnit string) float64 {
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
	s := fromProfile(allocs)
	bi, err := s.sampleIndex("alloc_space")
	if err != nil {
		if bi, err = s.sampleIndex(""); err != nil {
			return nil
		}
	}
	bytes := computeCosts(s, bi, uc, nil)
	var objs *costs
	if oi, err := s.sampleIndex("alloc_objects"); err == nil {
		objs = computeCosts(s, oi, uc, nil)
	}
	per := func(v int64) float64 {
		if requests <= 0 {
			return 0
		}
		return float64(v) / float64(requests)
	}
	var out []runfmt.AllocFunc
	for _, user := range []bool{true, false} {
		for _, f := range bytes.ranked(user, n) {
			key := bytes.flat
			if user {
				key = bytes.charg
			}
			a := runfmt.AllocFunc{Function: s.funcs[f].Name, UserCode: user, BytesPerRequest: per(key[f]), CumBytesPerReq: per(bytes.cum[f])}
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
