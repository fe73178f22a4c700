package findings

import (
	"fmt"
	"sort"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// cpuView is the CPU profile prepared for the rules: costs with attribution
// and the CPU time per request it is scaled to.
type cpuView struct{ *analysis.CPUView }

func newCPUView(in FindingInput) *cpuView {
	measured := 0.0
	if in.Target != nil {
		measured = in.Target.CPUMsPerRequest
	}
	return &cpuView{analysis.NewCPUView(in.CPU, in.Requests, in.UserCode, measured)}
}

// perReqText renders a share as "41% of CPU, 380 µs/request".
func (v *cpuView) perReqText(share float64) string {
	s := fmt.Sprintf("%.0f%% of CPU", 100*share)
	if v.UsPerRequest > 0 {
		s += ", " + units.FormatMicros(v.Us(share)) + "/request"
	}
	return s
}

// category groups library code by the kind of work it does; its label
// names the work in a finding's detail ("" for the kind's own name).
type category struct {
	kind          runfmt.FindingKind
	label, advice string
	prefixes      []string
	cacheable     bool
}

// name is the work the category's finding names.
func (c category) name() string {
	if c.label == "" {
		return string(c.kind)
	}
	return c.label
}

var categories = []category{
	{runfmt.FindingFormatting, "", "build the string with strconv.Append*/strings.Builder or precompute it; fmt with %v walks values by reflection", []string{"fmt."}, false},
	{runfmt.FindingEncoding, "", "reuse encoders and buffers, encode only what changed, or cache the encoded bytes", []string{"encoding/json.", "encoding/xml.", "encoding/gob.", "encoding/csv.", "google.golang.org/protobuf/", "github.com/golang/protobuf/", "image/png.", "image/jpeg.", "image/gif."}, true},
	{runfmt.FindingEncoding, "template execution", "cache the rendered output when its inputs rarely change", []string{"html/template.", "text/template."}, true},
	{runfmt.FindingCompression, "", "lower the compression level, skip small or already-compressed bodies, or cache compressed output", []string{"compress/", "github.com/klauspost/compress/"}, true},
	{runfmt.FindingRepeatedWork, "database/file reads", "read once and cache the result, or query only what changed", []string{"database/sql.", "github.com/mattn/go-sqlite3", "modernc.org/sqlite", "os.ReadFile", "os.(*File).Read", "io/ioutil.ReadFile"}, true},
	{runfmt.FindingRegexp, "regular expressions", "compile once outside the handler, or use strings functions for fixed patterns", []string{"regexp."}, false},
	{runfmt.FindingReflection, "", "avoid reflect on the request path: use concrete types or generated code", []string{"reflect."}, false},
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
// library entry points (fmt.Sprintf, image/png.Encode) carried the cost.
func (v *cpuView) categoryCosts() (map[catKey]int64, map[catKey]map[int32]int64) {
	cost, entry := map[catKey]int64{}, map[catKey]map[int32]int64{}
	s := v.Costs.Set()
	cats := make([]int, len(s.Funcs))
	for i, f := range s.Funcs {
		cats[i] = categoryOf(f.Name)
	}
	for si := 0; si < s.NumStacks(); si++ {
		val := s.Value(si, v.Costs.SampleIndex())
		if val == 0 {
			continue
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
					if entry[k] == nil {
						entry[k] = map[int32]int64{}
					}
					entry[k][fn] += val
				}
				break
			}
		}
	}
	return cost, entry
}

// Thresholds of the CPU rules, as shares of profiled CPU.
const (
	categoryMinShare  = 0.15 // library work "dominating" under one function
	repeatedMinShare  = 0.30 // cacheable work worth a caching suggestion
	hotUserMinShare   = 0.05 // a user function worth naming
	hotUserMaxListed  = 3
	coveredByCategory = 0.8 // hot function already explained by category findings
)

// categoryFindings reports library work dominating under a user function,
// and cacheable work repeated per request.
func (v *cpuView) categoryFindings() []ranked {
	if v.Costs == nil || v.Costs.Total() == 0 {
		return nil
	}
	cost, entry := v.categoryCosts()
	keys := make([]catKey, 0, len(cost))
	for k := range cost {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if cost[keys[i]] != cost[keys[j]] {
			return cost[keys[i]] > cost[keys[j]]
		}
		return keys[i].cat < keys[j].cat || keys[i].cat == keys[j].cat && keys[i].owner < keys[j].owner
	})
	var out []ranked
	for _, k := range keys {
		sh := v.Share(cost[k])
		cat := categories[k.cat]
		if cat.cacheable && sh >= repeatedMinShare {
			out = append(out, v.categoryFinding(k, cat, cost[k], entry[k], true))
		} else if sh >= categoryMinShare {
			out = append(out, v.categoryFinding(k, cat, cost[k], entry[k], false))
		}
	}
	return out
}

func (v *cpuView) categoryFinding(k catKey, cat category, cost int64, entries map[int32]int64, repeated bool) ranked {
	s := v.Costs.Set()
	owner := s.Funcs[k.owner].Name
	fns := analysis.ByCost(entries)
	top := s.Funcs[fns[0]].Name
	sh := v.Share(cost)
	f := runfmt.Finding{Kind: cat.kind, Share: sh, CostUsPerRequest: v.Us(sh), Functions: []string{owner}}
	var parts []string
	for i, fn := range fns {
		if i == 3 {
			break
		}
		f.Functions = append(f.Functions, s.Funcs[fn].Name)
		parts = append(parts, fmt.Sprintf("%s %.0f%%", s.Funcs[fn].Name, 100*v.Share(entries[fn])))
	}
	f.Title = fmt.Sprintf("%s under %s: %s", top, owner, v.perReqText(sh))
	f.Detail = fmt.Sprintf("%s spends %s in %s (%s). %s.", owner, v.perReqText(sh), cat.name(), strings.Join(parts, ", "), capitalize(cat.advice))
	if repeated {
		f.Kind = runfmt.FindingRepeatedWork
		f.Title = fmt.Sprintf("%s repeats %s on every request: %s", owner, top, v.perReqText(sh))
		f.Detail += " If the result is the same for many requests (data that changes once a second, a rendered page, an image), compute it once and serve the cached result."
	}
	return ranked{f, sh}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
