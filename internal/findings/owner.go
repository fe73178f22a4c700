package findings

import (
	"fmt"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// ownerCalleesListed is how many callees an owner finding names.
const ownerCalleesListed = 4

// ownerFindings names the functions that own the most CPU (see owner.go),
// ranked by their inclusive cost per request, each with the callees its
// cost is spread over; owners whose cost category findings already explain
// are left to those.
func (v *cpuView) ownerFindings(prev []ranked) []ranked {
	if v.Costs == nil || v.Costs.Total() == 0 {
		return nil
	}
	explained := map[string]float64{}
	for _, r := range prev {
		if len(r.f.Functions) > 0 && r.f.Kind != runfmt.FindingCPUBound && r.f.Kind != runfmt.FindingGC {
			explained[r.f.Functions[0]] += r.f.Share
		}
	}
	var out []ranked
	for _, o := range v.Costs.Owners(hotUserMaxListed+len(explained), hotUserMinShare) {
		if len(out) == hotUserMaxListed {
			break
		}
		sh := v.Share(o.Cum)
		name := v.Costs.Set().Funcs[o.Func].Name
		if explained[name] >= coveredByCategory*sh {
			continue
		}
		out = append(out, ranked{v.ownerFinding(o), sh})
	}
	return out
}

// ownerFinding words one owner:
//
//	Mash#initialize: 58% of CPU, 5.2ms/request — in deep_update 21%, convert_value 17%, custom_writer 14%, respond_to? 9%
func (v *cpuView) ownerFinding(o analysis.Owner) runfmt.Finding {
	s := v.Costs.Set()
	label := func(f int32) string { return analysis.FuncLabel(s.Funcs[f].Name, s.Funcs[f].File) }
	short := func(f int32) string { return analysis.ShortFuncName(s.Funcs[f].Name, s.Funcs[f].File) }
	name := s.Funcs[o.Func].Name
	sh := v.Share(o.Cum)
	fd := runfmt.Finding{Kind: runfmt.FindingHotUserFunction, Functions: []string{name}, Share: sh, CostUsPerRequest: v.Us(sh)}
	fd.Title = fmt.Sprintf("%s: %s", label(o.Func), v.perReqText(sh))
	var parts []string
	for i, c := range o.Callees {
		if i == ownerCalleesListed || v.Share(c.Cost) < 0.01 {
			break
		}
		fd.Functions = append(fd.Functions, s.Funcs[c.Func].Name)
		parts = append(parts, fmt.Sprintf("%s %.0f%%", short(c.Func), 100*v.Share(c.Cost)))
	}
	own := v.Share(o.Own)
	switch {
	case len(parts) > 0:
		fd.Title += " — in " + strings.Join(parts, ", ")
	case o.Library >= 0 && v.Share(o.LibraryCost) >= 0.5*sh:
		fd.Functions = append(fd.Functions, s.Funcs[o.Library].Name)
		fd.Title += ", mostly in " + s.Funcs[o.Library].Name
	}
	var d strings.Builder
	fmt.Fprintf(&d, "%s costs %s including everything it calls", label(o.Func), v.perReqText(sh))
	if len(parts) > 0 {
		fmt.Fprintf(&d, ": the user code it calls takes %s, and its own code with the library calls it makes directly %.0f%%",
			strings.Join(parts, ", "), 100*own)
	} else {
		fmt.Fprintf(&d, " (its own code: %.0f%%)", 100*v.Share(v.Costs.Flat(o.Func)))
	}
	if o.Library >= 0 && v.Share(o.LibraryCost) >= 0.05 {
		fmt.Fprintf(&d, "; the biggest library callee is %s with %s", s.Funcs[o.Library].Name, v.perReqText(v.Share(o.LibraryCost)))
	}
	d.WriteString(".")
	if len(o.Path) > 1 {
		steps := make([]string, len(o.Path))
		for i, f := range o.Path {
			steps[i] = short(f)
		}
		fmt.Fprintf(&d, " Reached from %s, the costliest user code above it, which spends most of its cost there.", strings.Join(steps, " → "))
	}
	if len(parts) > 1 {
		fmt.Fprintf(&d, " The cost is spread over what it calls, so tuning one callee wins little: if %s runs on every request for a result that rarely changes (an object built per request), build it once or cache it; otherwise look at its costliest callees.", short(o.Func))
	} else {
		d.WriteString(" Start optimising here: it is code you can change.")
	}
	fd.Detail = d.String()
	return fd
}
