package findings

import (
	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// lineKinds are the finding kinds whose culprit is code whose lines carry
// the cost, and (for the library categories) whose cost goes through a
// library entry point: their lines are those that call it.
var lineKinds = map[runfmt.FindingKind]bool{
	runfmt.FindingHotUserFunction: false,
	runfmt.FindingFormatting:      true, runfmt.FindingEncoding: true, runfmt.FindingCompression: true,
	runfmt.FindingRegexp: true, runfmt.FindingReflection: true, runfmt.FindingRepeatedWork: true,
	runfmt.FindingConstructor: true,
}

// AttachLines fills the culprit lines of the findings and hot functions
// from the CPU profile (see analysis.CulpritLines): for a finding about
// CPU, the lines of its culprit its cost goes through (for library work
// such as formatting, the lines that call it); for a hot user function,
// its costliest lines; for a library function named where a culprit's
// cost goes (runfmt.RoleLibraryFunc, runfmt.HotFunc.LibraryFunc), the
// line its cost goes through.
func AttachLines(cpu *profile.Profile, fs []runfmt.Finding, hot []runfmt.HotFunc, src *analysis.Sources, uc analysis.UserCode) {
	var reqs []analysis.LineRequest
	var to []*[]runfmt.SourceLine
	for i := range fs {
		f := &fs[i]
		lib, ok := lineKinds[f.Kind]
		c, named := f.Culprit()
		us := f.Figures[runfmt.FigCPUPerRequest]
		if !ok || !named || us <= 0 {
			continue
		}
		r := analysis.LineRequest{Function: c.Function, File: c.File, UsPerRequest: us}
		if es := withRole(f, runfmt.RoleEntry); lib && len(es) > 0 {
			r.Via = es[0].Function
		}
		// A hot function's lines are of the cost its figure counts.
		r.Own = f.Kind == runfmt.FindingHotUserFunction && f.Settings[runfmt.SettingCost] == runfmt.CostOwn
		reqs, to = append(reqs, r), append(to, &f.Lines)
	}
	for i := range hot {
		if h := &hot[i]; h.UserCode {
			reqs, to = append(reqs, analysis.LineRequest{Function: h.Function, File: h.File, UsPerRequest: h.CumUsPerRequest}), append(to, &h.Lines)
		}
	}
	// A library function holding a user function's cost: its line, in
	// the stacks through that user function.
	var at []*int64
	for i := range fs {
		c, ok := fs[i].Culprit()
		for j, e := range fs[i].Evidence.Functions {
			if ok && e.Role == runfmt.RoleLibraryFunc {
				reqs = append(reqs, analysis.LineRequest{Function: e.Function, File: e.File, Via: c.Function})
				at = append(at, &fs[i].Evidence.Functions[j].Line)
			}
		}
	}
	for i := range hot {
		if h := &hot[i]; h.UserCode && h.LibraryFunc != nil {
			reqs = append(reqs, analysis.LineRequest{Function: h.LibraryFunc.Function, File: h.LibraryFunc.File, Via: h.Function})
			at = append(at, &h.LibraryFunc.Line)
		}
	}
	lines := analysis.CulpritLines(cpu, reqs, src, uc)
	for i, ls := range lines[:len(to)] {
		*to[i] = ls
	}
	for i, ls := range lines[len(to):] {
		if len(ls) > 0 {
			*at[i] = ls[0].Line
		}
	}
}
