package findings

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// cpuView is the CPU profile prepared for the rules: costs with attribution
// and the CPU time per request it is scaled to.
type cpuView struct{ *analysis.CPUView }

func newCPUView(in FindingInput) *cpuView {
	measured := 0.0
	if in.Target != nil {
		measured = in.Target.CPUMsPerRequest
	}
	return &cpuView{analysis.NewCPUView(in.CPU, in.Requests, in.UserCode, measured, in.Ledger.UnsampledStartMs())}
}

// category groups library code by the kind of work it does: the finding
// it gives, the advice that goes with it (which names the category in a
// finding's data and in its words, package prose), the frames that are
// its code, and whether its result can be cached (a repeated-work
// finding when it dominates).
type category struct {
	kind      runfmt.FindingKind
	key       runfmt.Advice
	prefixes  []string
	cacheable bool
}

var categories = []category{
	{runfmt.FindingFormatting, runfmt.AdviceBuildStrings, []string{"fmt."}, false},
	{runfmt.FindingEncoding, runfmt.AdviceReuseEncoders, []string{"encoding/json.", "encoding/xml.", "encoding/gob.", "encoding/csv.", "google.golang.org/protobuf/", "github.com/golang/protobuf/", "image/png.", "image/jpeg.", "image/gif."}, true},
	{runfmt.FindingEncoding, runfmt.AdviceCacheRendered, []string{"html/template.", "text/template."}, true},
	{runfmt.FindingCompression, runfmt.AdviceCompressLess, []string{"compress/", "github.com/klauspost/compress/"}, true},
	{runfmt.FindingRepeatedWork, runfmt.AdviceCacheReads, []string{"database/sql.", "github.com/mattn/go-sqlite3", "modernc.org/sqlite", "os.ReadFile", "os.(*File).Read", "io/ioutil.ReadFile"}, true},
	{runfmt.FindingRegexp, runfmt.AdviceCompileOnce, []string{"regexp."}, false},
	{runfmt.FindingReflection, runfmt.AdviceAvoidReflect, []string{"reflect."}, false},
}

func categoryOf(name string) int {
	for i, c := range categories {
		for _, p := range c.prefixes {
			if strings.HasPrefix(name, p) {
				return i
			}
		}
	}
	return -1
}

// catKey identifies library work of one category under one user function.
type catKey struct {
	cat   int
	owner int32
}

// categoryCosts charges each stack's cost to (category, owner): the
// outermost category frame between the leaf and the nearest user frame that
// is not itself library code of a category. entry[key][fn] records which
// library entry points (fmt.Sprintf, image/png.Encode) carried the cost,
// region[key] its stacks.
func (v *cpuView) categoryCosts() (cost map[catKey]int64, entry map[catKey]map[int32]int64, region map[catKey][]int) {
	cost, entry, region = map[catKey]int64{}, map[catKey]map[int32]int64{}, map[catKey][]int{}
	s := v.Costs.Set()
	cats := make([]int, len(s.Funcs))
	for i, f := range s.Funcs {
		cats[i] = categoryOf(f.Name)
	}
	for si := 0; si < s.NumStacks(); si++ {
		val := s.Value(si, v.Costs.SampleIndex())
		if val == 0 || v.Costs.IsMeasuring(si) {
			continue // perflab's measuring: no user function's
		}
		cat, fn := -1, int32(-1)
		for _, f := range s.Stack(si) {
			if cats[f] >= 0 {
				cat, fn = cats[f], f
				continue
			}
			if v.Costs.User(f) {
				if cat >= 0 {
					k := catKey{cat, f}
					cost[k] += val
					region[k] = append(region[k], si)
					if entry[k] == nil {
						entry[k] = map[int32]int64{}
					}
					entry[k][fn] += val
				}
				break
			}
		}
	}
	return cost, entry, region
}

// Thresholds of the CPU rules, as shares of profiled CPU.
const (
	categoryMinShare  = 0.15 // library work "dominating" under one function
	repeatedMinShare  = 0.30 // cacheable work worth a caching suggestion
	hotUserMinShare   = 0.05 // a user function worth naming
	hotUserMaxListed  = 3
	coveredByCategory = 0.8 // hot function already explained by category findings
	entriesListed     = 3   // library entry points a category finding names
)

// categoryFindings report library work dominating under a user function,
// and cacheable work repeated per request.
func categoryFindings(c *context) []ranked {
	v := c.cpu
	if v.Costs == nil || v.Costs.Total() == 0 {
		return nil
	}
	cost, entry, region := v.categoryCosts()
	keys := slices.Collect(maps.Keys(cost))
	slices.SortFunc(keys, func(a, b catKey) int {
		return cmp.Or(cmp.Compare(cost[b], cost[a]), cmp.Compare(a.cat, b.cat), cmp.Compare(a.owner, b.owner))
	})
	var out []ranked
	for _, k := range keys {
		sh := v.Share(cost[k])
		cat := categories[k.cat]
		if cat.cacheable && sh >= repeatedMinShare && !c.in.Batch {
			out = append(out, v.categoryFinding(k, cost[k], entry[k], true))
		} else if sh >= categoryMinShare {
			out = append(out, v.categoryFinding(k, cost[k], entry[k], false))
		} else {
			continue
		}
		out[len(out)-1].region = region[k]
	}
	return out
}

func (v *cpuView) categoryFinding(k catKey, cost int64, entries map[int32]int64, repeated bool) ranked {
	s := v.Costs.Set()
	cat := categories[k.cat]
	sh := v.Share(cost)
	f := runfmt.Finding{Kind: cat.kind, Advice: cat.key, Figures: runfmt.Figures{runfmt.FigShare: sh, runfmt.FigCPUPerRequest: v.Us(sh)}}
	if repeated {
		f.Kind = runfmt.FindingRepeatedWork
	}
	fns := f.Evidence.Functions
	culprit := runfmt.FuncEvidence{Role: runfmt.RoleCulprit, Function: s.Funcs[k.owner].Name, File: s.Funcs[k.owner].File}
	if lib, lc := v.Costs.TopLibrary(k.owner); lib != "" && v.Share(lc) >= ownerLibraryMin {
		culprit.Package = lib
		f.Figures[runfmt.FigLibraryShare] = v.Share(lc)
	}
	fns = append(fns, culprit)
	for i, fn := range analysis.ByCost(entries) {
		if i == entriesListed {
			break
		}
		fns = append(fns, runfmt.FuncEvidence{Role: runfmt.RoleEntry, Function: s.Funcs[fn].Name, Figures: runfmt.Figures{runfmt.FigShare: v.Share(entries[fn])}})
	}
	f.Evidence.Functions = fns
	return ranked{f: f, rank: sh}
}
