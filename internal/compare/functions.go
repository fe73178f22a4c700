package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// funcCost is a function's cost per request in one profile.
type funcCost struct {
	cost float64
	user bool
}

// costs lists a profile's functions with their cost per request, using the
// same accounting as perflab run's hot and allocation tables: a user
// function (by uc, the rule of the run the profile comes from) is charged
// its own cost plus that of the library and runtime code it calls, so the
// planted function, not strings.ToLower under it, is the one that changes;
// other functions count their flat cost.
func costs(p *profile.Profile, kind runfmt.ProfileType, requests int64, uc analysis.UserCode) map[string]funcCost {
	out := map[string]funcCost{}
	if kind == runfmt.ProfileCPU {
		for _, h := range analysis.HotFor(p, requests, 0, uc) {
			c := h.CPUUsPerRequest
			if h.UserCode {
				c += h.AttributedUsReq
			}
			out[h.Function] = funcCost{c, h.UserCode}
		}
		return out
	}
	for _, a := range analysis.AllocTopFor(p, requests, 0, uc) {
		out[a.Function] = funcCost{a.BytesPerRequest, a.UserCode}
	}
	return out
}

// compareProfiles fills c.Functions from both groups' CPU and allocation
// profiles and returns the merged profiles.
func compareProfiles(c *runfmt.Comparison, base, new []run, n int) (cpu, allocs *ProfilePair) {
	var rows []runfmt.FunctionDelta
	for _, kind := range []runfmt.ProfileType{runfmt.ProfileCPU, runfmt.ProfileAllocs} {
		pair, r := compareKind(kind, base, new, n, &c.Warnings)
		rows = append(rows, r...)
		if kind == runfmt.ProfileCPU {
			cpu = pair
		} else {
			allocs = pair
		}
	}
	if rows != nil {
		c.Functions = rows
	}
	return cpu, allocs
}

func compareKind(kind runfmt.ProfileType, base, new []run, n int, warn *[]string) (*ProfilePair, []runfmt.FunctionDelta) {
	br, bp := pick(base, kind)
	nr, np := pick(new, kind)
	if !profilesPresent(kind, base, new, len(br), len(nr), warn) {
		return nil, nil
	}
	bm, breq, err := merge(br, bp)
	if err == nil {
		var nm *profile.Profile
		var nreq int64
		if nm, nreq, err = merge(nr, np); err == nil {
			pair := &ProfilePair{Base: bm, New: nm, BaseRequests: breq, NewRequests: nreq}
			return pair, functionRows(kind, pair, br, nr, n)
		}
	}
	*warn = append(*warn, fmt.Sprintf("%s profiles: %v: per-function changes not compared", kind, err))
	return nil, nil
}

// profilesPresent warns about runs without the profile and reports whether
// both groups have at least one.
func profilesPresent(kind runfmt.ProfileType, base, new []run, nb, nn int, warn *[]string) bool {
	switch {
	case nb == 0 && nn == 0:
		return false
	case nb == 0 || nn == 0:
		side := "base"
		if nn == 0 {
			side = "new"
		}
		*warn = append(*warn, fmt.Sprintf("no %s profile in the %s runs: per-function %s changes not compared", kind, side, kind))
		return false
	}
	if nb < len(base) || nn < len(new) {
		*warn = append(*warn, fmt.Sprintf("%s profile: present in %d of %d base and %d of %d new runs; function changes use those", kind, nb, len(base), nn, len(new)))
	}
	return true
}

// functionRows compares per-request costs function by function: the values
// come from the merged profiles, each classified by its side's rule of user
// code, the p-values from the runs' own costs, each by its run's rule. A
// function is user code when either side's rule says so.
func functionRows(kind runfmt.ProfileType, pair *ProfilePair, br, nr []run, n int) []runfmt.FunctionDelta {
	bc, nc := costs(pair.Base, kind, pair.BaseRequests, br[0].uc), costs(pair.New, kind, pair.NewRequests, nr[0].uc)
	bper, nper := perRun(kind, br), perRun(kind, nr)
	// One function named differently by the two builds (a renumbered Go
	// closure, a JVM lambda, node's anonymous function) is one row, under
	// the base's name: not one "gone" and one "new".
	paired := ownership.Pair(slices.Collect(maps.Keys(bc)), slices.Collect(maps.Keys(nc)))
	nc = renamePaired(nc, paired)
	for i := range nper {
		nper[i] = renamePaired(nper[i], paired)
	}
	unit := runfmt.FunctionUnitUs
	if kind == runfmt.ProfileAllocs {
		unit = runfmt.FunctionUnitByte
	}
	var rows []runfmt.FunctionDelta
	add := func(name string) {
		d := runfmt.FunctionDelta{Function: name, Profile: kind, Unit: unit, UserCode: bc[name].user || nc[name].user,
			Base: bc[name].cost, New: nc[name].cost}
		d.Delta = d.New - d.Base
		if d.Delta == 0 {
			return
		}
		if d.Base != 0 {
			pct := 100 * d.Delta / d.Base
			d.DeltaPct = &pct
		}
		if sc := stats.Compare(column(bper, name), column(nper, name)); !sc.TooFew {
			p := sc.P
			d.PValue, d.Significant = &p, sc.Significant
		}
		rows = append(rows, d)
	}
	for name := range bc {
		add(name)
	}
	for name := range nc {
		if _, ok := bc[name]; !ok {
			add(name)
		}
	}
	sortRows(rows)
	return capRows(rows, n)
}

// capRows keeps up to n user-code rows and n/2 others.
func capRows(rows []runfmt.FunctionDelta, n int) []runfmt.FunctionDelta {
	var out []runfmt.FunctionDelta
	users, others := 0, 0
	for _, r := range rows {
		if r.UserCode && users < n {
			users++
			out = append(out, r)
		} else if !r.UserCode && others < max(n/2, 1) {
			others++
			out = append(out, r)
		}
	}
	return out
}

func perRun(kind runfmt.ProfileType, runs []run) []map[string]funcCost {
	out := make([]map[string]funcCost, len(runs))
	for i, r := range runs {
		p := r.cpu
		if kind == runfmt.ProfileAllocs {
			p = r.allocs
		}
		out[i] = costs(p, kind, r.requests(), r.uc)
	}
	return out
}

// column is one function's cost in each run (0 where it did not appear).
func column(per []map[string]funcCost, name string) []float64 {
	v := make([]float64, len(per))
	for i, m := range per {
		v[i] = m[name].cost
	}
	return v
}

// sortRows puts user code first, then the biggest absolute changes.
func sortRows(rows []runfmt.FunctionDelta) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.UserCode != b.UserCode {
			return a.UserCode
		}
		if x, y := math.Abs(a.Delta), math.Abs(b.Delta); x != y {
			return x > y
		}
		return a.Function < b.Function
	})
}

// renamePaired returns m with each name that pairs with another base name
// renamed to it (costs of names that meet are added).
func renamePaired(m map[string]funcCost, paired map[string]string) map[string]funcCost {
	out := make(map[string]funcCost, len(m))
	for name, c := range m {
		if b, ok := paired[name]; ok {
			name = b
		}
		if o, ok := out[name]; ok {
			c.cost += o.cost
			c.user = c.user || o.user
		}
		out[name] = c
	}
	return out
}
