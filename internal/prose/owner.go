package prose

import (
	"perflab/internal/funcname"
	"perflab/internal/runfmt"
)

// mostlyLibrary is the share of a function's cost its library must hold
// for the title to name the library rather than its callees.
const mostlyLibrary = 0.5

// ownerWords word the functions that own the most CPU, each with the
// callees its cost is spread over.
var ownerWords = oneKind(runfmt.FindingHotUserFunction, ownerTitle, ownerDetail, advices{
	runfmt.AdviceCacheOrCallees: func(v view, p *Prose) {
		p.say("The cost is spread over what it calls, so tuning one callee wins little: if %v runs on every request for a result that rarely changes (an object built per request), build it once or cache it; otherwise look at its costliest callees.", code(short(v.culprit())))
	},
	runfmt.AdviceStartHere: fixed("Start optimising here: it is code you can change."),
})

// "Mash#initialize: 58% of CPU, 5.20 ms/request — in deep_update 21%,
// convert_value 17%, custom_writer 14%, respond_to? 9%"
func ownerTitle(v view, p *Prose) {
	p.say("%v: ", code(label(v.culprit())))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
	held := v.funcs(runfmt.RoleLibraryFunc)
	if pkg := v.culprit().Package; pkg != "" && v.val(runfmt.FigLibraryShare) >= mostlyLibrary*v.val(runfmt.FigShare) {
		p.say(" — library %v under your %v %v", code(pkg), code(short(v.culprit())), v.fig(runfmt.FigLibraryShare))
		if len(held) > 0 {
			p.say(" → %v", code(libraryAt(held[0])))
		}
	} else if cs := v.funcs(runfmt.RoleCallee); len(cs) > 0 {
		p.words(" — in ")
		calleeList(p, cs)
	} else if es := v.funcs(runfmt.RoleEntry); len(es) > 0 {
		p.say(", mostly in %v", code(es[0].Function))
		if len(held) > 0 {
			p.say(" → %v", code(libraryAt(held[0])))
		}
	}
}

// libraryAt names a library function with its file and the line its cost
// goes through, when known.
func libraryAt(e runfmt.FuncEvidence) string {
	return funcname.LineLabel(e.Function, e.File, e.Line)
}

func calleeList(p *Prose, cs []runfmt.FuncEvidence) {
	p.join(", ", len(cs), func(i int) { p.say("%v %v", code(short(cs[i])), efig(cs[i], runfmt.FigShare)) })
}

func ownerDetail(v view, p *Prose) {
	p.say("%v costs ", code(label(v.culprit())))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
	switch v.set(runfmt.SettingCost) {
	case runfmt.CostOwn:
		p.words(" including the library and runtime code it calls")
	case runfmt.CostRest:
		p.words(" including what it calls, but not what costlier findings own")
	default:
		p.words(" including everything it calls")
	}
	if cs := v.funcs(runfmt.RoleCallee); len(cs) > 0 {
		p.words(": the user code it calls takes ")
		calleeList(p, cs)
		p.say(", and its own code with the library calls it makes directly %v", v.fig(runfmt.FigOwnShare))
	} else {
		p.say(" (its own code: %v)", v.fig(runfmt.FigOwnShare))
	}
	held := v.funcs(runfmt.RoleLibraryFunc)
	for _, lib := range append(v.funcs(runfmt.RoleEntry), v.funcs(runfmt.RoleLibrary)...) {
		p.say("; the biggest library callee is %v with ", code(lib.Function))
		perRequest(p, lib.Figures[runfmt.FigShare], lib.Figures[runfmt.FigCPUPerRequest])
		if len(held) > 0 {
			p.say(", and its cost goes to %v with ", code(libraryAt(held[0])))
			perRequest(p, held[0].Figures[runfmt.FigShare], held[0].Figures[runfmt.FigCPUPerRequest])
		}
	}
	p.words(".")
	if pkg := v.culprit().Package; pkg != "" {
		p.say(" Library %v under your %v takes %v: not code you can change, so change how %v calls it (less often, with less, or a cheaper call).",
			code(pkg), code(short(v.culprit())), v.fig(runfmt.FigLibraryShare), code(short(v.culprit())))
	}
	if v.has(runfmt.FigDatabaseShare) {
		p.say(" %v of the CPU is database work (a database client under %v): fewer or cheaper queries are the fix, not faster code.",
			v.fig(runfmt.FigDatabaseShare), code(short(v.culprit())))
	}
	if path := v.funcs(runfmt.RolePath); len(path) > 0 {
		p.words(" Reached from ")
		p.join(" → ", len(path), func(i int) { p.say("%v", code(short(path[i]))) })
		p.words(", the costliest user code above it, which spends most of its cost there.")
	}
	if v.has(runfmt.FigOverCounted) {
		p.say(" Uncertain: the profile's samples stand for %v× the CPU measured; its sampler counted threads waiting for a CPU as running, and those samples fall on the code that runs right after a wait (a send, a wake-up). Measure again with the service on cores of its own (--service-cpus).",
			v.fig(runfmt.FigOverCounted))
	}
}
