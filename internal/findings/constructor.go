package findings

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// A constructor built on every request. Library code that builds an
// object (a compressor, a compiled pattern or template, an encoder, a
// client) does the same work every time it is called with the same
// arguments: called under a handler, it rebuilds per request what could
// be built once. Such a call is told from the object's use by its shape:
// its name says it builds (constructorName: New*, Compile, MustCompile,
// compile, <init>, __init__, getInstance, new, ...), and, where an
// allocation profile shows it, it allocates the object's state on every
// call. A constructor a library method runs lazily (compress/gzip's
// Writer builds its flate compressor at the first Write) is found under
// that method; the object it belongs to was made per request, and
// AttachMakers names the line that made it.
//
// The rule names a constructor when it holds most of the cost of a
// finding made before it (library work of a category under a user
// function, or a hot user function) or most of the cost charged to the
// user function it runs under; the stacks it holds are carved out of
// those findings, so each stack's cost is counted by one finding.

// Thresholds of the constructor rule.
const (
	ctorMinShare = hotUserMinShare // of the CPU, for a constructor to be named
	ctorMostly   = 0.5             // of a finding's or a function's cost: "holds most of it"
	// ctorMinBytes is the least a constructor allocates per request, where
	// an allocation profile shows it, for it to build an object's state
	// (a uuid.New or a big.NewInt makes a small value instead).
	ctorMinBytes = 1024
)

// ctorKey is a constructor (its outermost frame below the user code) and
// the user function it runs under.
type ctorKey struct{ ctor, user int32 }

// ctorCost is what a constructor costs under one user function: its
// stacks, and the library calls the user function made to reach it (the
// constructor itself, or a method or function that runs it).
type ctorCost struct {
	cost   int64
	stacks []int
	via    map[int32]int64
}

// constructorCosts charges each stack whose library frames below its
// nearest user frame include a constructor to (the outermost such
// constructor, that user frame).
func (v *cpuView) constructorCosts() map[ctorKey]*ctorCost {
	s := v.Costs.Set()
	isCtor := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		isCtor[i] = !v.Costs.User(int32(i)) && constructorName(f.Name, f.File)
	}
	out := map[ctorKey]*ctorCost{}
	for si := range s.NumStacks() {
		val := s.Value(si, v.Costs.SampleIndex())
		if val == 0 {
			continue
		}
		st := s.Stack(si)
		ctor := int32(-1)
		for i, f := range st {
			if !v.Costs.User(f) {
				if isCtor[f] {
					ctor = f
				}
				continue
			}
			if ctor >= 0 && i > 0 {
				k := ctorKey{ctor, f}
				c := out[k]
				if c == nil {
					c = &ctorCost{via: map[int32]int64{}}
					out[k] = c
				}
				c.cost += val
				c.stacks = append(c.stacks, si)
				c.via[st[i-1]] += val
			}
			break
		}
	}
	return out
}

// constructorFindings name library constructors called per request.
func constructorFindings(c *context) []ranked {
	v := c.cpu
	if v.Costs == nil || v.Costs.Total() == 0 || c.in.Batch {
		return nil // a batch program has no requests to build per
	}
	costs := v.constructorCosts()
	keys := slices.Collect(maps.Keys(costs))
	slices.SortFunc(keys, func(a, b ctorKey) int {
		return cmp.Or(cmp.Compare(costs[b].cost, costs[a].cost), cmp.Compare(a.ctor, b.ctor), cmp.Compare(a.user, b.user))
	})
	var out []ranked
	for _, k := range keys { // decided on the findings as their rules made them
		cc := costs[k]
		if v.Share(cc.cost) < ctorMinShare || !v.ctorHolds(c.found, k, cc) {
			continue
		}
		alloc, known := ctorAllocs(c.in, v.Costs.Name(k.ctor), v.Costs.Name(k.user))
		if known && alloc.bytes < ctorMinBytes {
			continue // it builds no state on each call: a value's constructor
		}
		out = append(out, ranked{f: v.ctorFinding(k, cc, alloc, known, c.in.Runtime), rank: v.Share(cc.cost), region: cc.stacks})
	}
	for _, r := range out {
		c.found = v.carve(c.found, r)
	}
	return out
}

// ctorHolds says the constructor holds most of the cost of a finding
// whose stacks it shares, or of the cost charged to its user function.
func (v *cpuView) ctorHolds(found []ranked, k ctorKey, cc *ctorCost) bool {
	if float64(cc.cost) >= ctorMostly*float64(v.Costs.Charged(k.user)) {
		return true
	}
	in := setOf(cc.stacks)
	for _, r := range found {
		if !carvable(r) {
			continue
		}
		total, shared := v.regionCost(r.region, in)
		if total > 0 && float64(shared) >= ctorMostly*float64(total) {
			return true
		}
	}
	return false
}

// carvable says a finding counts CPU by its stacks: library work of a
// category, repeated work, a hot user function.
func carvable(r ranked) bool {
	_, ok := lineKinds[r.f.Kind]
	return ok && r.region != nil && r.f.Kind != runfmt.FindingConstructor
}

func setOf(xs []int) map[int]bool {
	m := make(map[int]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// regionCost is the cost of a region's stacks, and of those in shared.
func (v *cpuView) regionCost(region []int, shared map[int]bool) (total, in int64) {
	s, vi := v.Costs.Set(), v.Costs.SampleIndex()
	for _, si := range region {
		val := s.Value(si, vi)
		total += val
		if shared[si] {
			in += val
		}
	}
	return total, in
}

// carve takes the constructor's stacks out of the findings that count
// them: each keeps the rest of its cost, no longer naming the
// constructor, and a finding left below its rule's least share is
// dropped, the constructor's finding taking its place.
func (v *cpuView) carve(found []ranked, ctor ranked) []ranked {
	in := setOf(ctor.region)
	named := map[string]bool{}
	for _, e := range ctor.f.Evidence.Functions {
		if e.Role != runfmt.RoleCulprit {
			named[e.Function] = true
		}
	}
	out := found[:0]
	for _, r := range found {
		if !carvable(r) {
			out = append(out, r)
			continue
		}
		total, shared := v.regionCost(r.region, in)
		if shared == 0 {
			out = append(out, r)
			continue
		}
		rest := v.Share(total - shared)
		if rest < carvedMinShare(r.f.Kind) {
			continue
		}
		var region []int
		for _, si := range r.region {
			if !in[si] {
				region = append(region, si)
			}
		}
		r.region, r.rank = region, rest
		r.f.Figures[runfmt.FigShare], r.f.Figures[runfmt.FigCPUPerRequest] = rest, v.Us(rest)
		if r.f.Kind == runfmt.FindingHotUserFunction {
			uncount(&r.f, ctor, v.Share(shared), named)
		} else {
			v.reEnter(&r)
		}
		out = append(out, r)
	}
	return out
}

// uncount takes a constructor's share out of a hot function's figures
// that counted it: its own code's (when the constructor ran under the
// function itself), a user callee's (when it ran under that callee), its
// library's; and the constructor out of its callees named.
func uncount(f *runfmt.Finding, ctor ranked, share float64, named map[string]bool) {
	f.Settings = f.Settings.With(runfmt.SettingCost, runfmt.CostRest)
	under, _ := ctor.f.Culprit()
	culprit, _ := f.Culprit()
	less := func(figs runfmt.Figures, fig runfmt.Figure) {
		if v, ok := figs[fig]; ok {
			figs[fig] = max(v-share, 0)
		}
	}
	if under.Function == culprit.Function {
		less(f.Figures, runfmt.FigOwnShare)
		less(f.Figures, runfmt.FigLibraryShare)
	}
	fns := f.Evidence.Functions[:0]
	for _, e := range f.Evidence.Functions {
		switch {
		case (e.Role == runfmt.RoleEntry || e.Role == runfmt.RoleLibrary) && named[e.Function]:
			continue
		case e.Role == runfmt.RoleCallee && e.Function == under.Function:
			less(e.Figures, runfmt.FigShare)
			if e.Figures[runfmt.FigShare] < ownerCalleeMin {
				continue
			}
		case e.Role == runfmt.RoleCulprit && f.Figures[runfmt.FigLibraryShare] < ownerLibraryMin:
			e.Package = "" // its library no longer holds a notable share
			delete(f.Figures, runfmt.FigLibraryShare)
		}
		fns = append(fns, e)
	}
	f.Evidence.Functions = fns
}

// carvedMinShare is the least share a finding of kind k keeps once
// carved: its rule's own threshold.
func carvedMinShare(k runfmt.FindingKind) float64 {
	if k == runfmt.FindingHotUserFunction {
		return hotUserMinShare
	}
	return categoryMinShare
}

// reEnter recomputes a category finding's library entry points over its
// stacks, as categoryCosts does.
func (v *cpuView) reEnter(r *ranked) {
	s, vi := v.Costs.Set(), v.Costs.SampleIndex()
	entries := map[int32]int64{}
	for _, si := range r.region {
		fn := int32(-1)
		for _, f := range s.Stack(si) {
			if v.Costs.User(f) {
				break
			}
			if categoryOf(s.Funcs[f].Name) >= 0 {
				fn = f
			}
		}
		if fn >= 0 {
			entries[fn] += s.Value(si, vi)
		}
	}
	fns := slices.DeleteFunc(r.f.Evidence.Functions, func(e runfmt.FuncEvidence) bool { return e.Role == runfmt.RoleEntry })
	for i, fn := range analysis.ByCost(entries) {
		if i == entriesListed {
			break
		}
		fns = append(fns, runfmt.FuncEvidence{Role: runfmt.RoleEntry, Function: s.Funcs[fn].Name, Figures: runfmt.Figures{runfmt.FigShare: v.Share(entries[fn])}})
	}
	r.f.Evidence.Functions = fns
}

// ctorAlloc is what a constructor allocated per request.
type ctorAlloc struct{ bytes, objects float64 }

// ctorAllocs reads the allocation profile for the bytes and objects the
// constructor allocated per request under the user function; known is
// false without an allocation profile.
func ctorAllocs(in FindingInput, ctor, user string) (a ctorAlloc, known bool) {
	if in.Allocs == nil || in.Requests <= 0 {
		return a, false
	}
	s := stacks.FromProfile(in.Allocs)
	bi, err := s.SampleIndex("alloc_space")
	if err != nil {
		return a, false
	}
	oi, _ := s.SampleIndex("alloc_objects")
	isUser := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		isUser[i] = in.UserCode.IsUser(f.Name, f.File)
	}
	var bytes, objects int64
	for si := range s.NumStacks() {
		seen := false
		for _, f := range s.Stack(si) {
			if isUser[f] {
				if seen && s.Funcs[f].Name == user {
					bytes += s.Value(si, bi)
					if oi >= 0 {
						objects += s.Value(si, oi)
					}
				}
				break
			}
			seen = seen || s.Funcs[f].Name == ctor
		}
	}
	n := float64(in.Requests)
	return ctorAlloc{float64(bytes) / n, float64(objects) / n}, true
}

// ctorFinding is the constructor's finding: the user function it runs
// under (the culprit), the constructor (its entry), and the library call
// that runs it when that is not the constructor itself.
func (v *cpuView) ctorFinding(k ctorKey, cc *ctorCost, alloc ctorAlloc, allocKnown bool, rt runfmt.Runtime) runfmt.Finding {
	s := v.Costs.Set()
	sh := v.Share(cc.cost)
	f := runfmt.Finding{Kind: runfmt.FindingConstructor, Advice: runfmt.AdviceBuildOnce,
		Figures:  runfmt.Figures{runfmt.FigShare: sh, runfmt.FigCPUPerRequest: v.Us(sh)},
		Settings: runfmt.Settings{}.With(runfmt.SettingRuntime, string(rt))}
	if allocKnown {
		f.Figures[runfmt.FigBytesPerRequest], f.Figures[runfmt.FigObjectsPerRequest] = alloc.bytes, alloc.objects
	}
	fn := func(role runfmt.Role, i int32, figs runfmt.Figures) runfmt.FuncEvidence {
		return runfmt.FuncEvidence{Role: role, Function: s.Funcs[i].Name, File: s.Funcs[i].File, Figures: figs}
	}
	ev := []runfmt.FuncEvidence{fn(runfmt.RoleCulprit, k.user, nil), fn(runfmt.RoleEntry, k.ctor, runfmt.Figures{runfmt.FigShare: sh})}
	if via := analysis.ByCost(cc.via); via[0] != k.ctor {
		ev = append(ev, fn(runfmt.RoleLibrary, via[0], runfmt.Figures{runfmt.FigShare: v.Share(cc.via[via[0]])}))
	}
	f.Evidence.Functions = ev
	return f
}

// constructorName says a function, as a profile names it, has the shape
// of a constructor: it builds an object (a compressor, a compiled
// pattern or template, a cipher, a client) rather than using one.
func constructorName(name, file string) bool {
	qual, method := splitFrame(name)
	switch {
	case method == "", strings.HasPrefix(name, "operator new"):
		return false // C++'s allocator, not an object's constructor
	case method == "<init>":
		return !jvmValueClass(qual)
	case method == "__init__", method == "__new__", method == "initialize", method == "new":
		return !valueModel(file)
	case method == "getInstance", method == "newInstance", method == "ofPattern", method == "from_string":
		return true
	case method == "Compile", method == "MustCompile", method == "CompilePOSIX", method == "MustCompilePOSIX", method == "compile":
		return true
	case goExported.MatchString(method):
		return !goPlumbing(qual)
	case javaFactory.MatchString(method):
		return true
	case method == "build" && strings.HasSuffix(qual, "Builder") && strings.Contains(name, "::"):
		return true // a Rust builder's build (regex::RegexBuilder::build)
	case strings.HasSuffix(method, "Constructor"):
		return true // V8's builtins (RegExpConstructor)
	case jsFactory.MatchString(method):
		return strings.HasPrefix(file, "node:") || slices.Contains([]string{".js", ".mjs", ".cjs"}, fileExt(file))
	}
	return goTemplateParse(qual, method) || goDial(qual, method) || goKeyPair(qual, method)
}

var (
	goExported  = regexp.MustCompile(`^New([A-Z0-9_].*)?$`)
	javaFactory = regexp.MustCompile(`^new[A-Z]\w*$`)
	jsFactory   = regexp.MustCompile(`^create[A-Z]\w*$`)
	rustHash    = regexp.MustCompile(`::h[0-9a-f]{16}$`)
)

// goPlumbing are Go packages whose New* functions make values, not
// objects to reuse: errors.New, reflect.New, the runtime's packages'.
func goPlumbing(qual string) bool {
	return qual == "errors" || qual == "reflect" || strings.HasPrefix(qual, "runtime/") || strings.HasPrefix(qual, "internal/")
}

// goTemplateParse is a Go template's parsing: its compile step.
func goTemplateParse(qual, method string) bool {
	if !strings.HasPrefix(qual, "text/template") && !strings.HasPrefix(qual, "html/template") {
		return false
	}
	return method == "Parse" || method == "ParseFiles" || method == "ParseGlob" || method == "ParseFS"
}

// goDial is a gRPC client connection's set-up.
func goDial(qual, method string) bool {
	return strings.HasSuffix(qual, "google.golang.org/grpc") && (method == "Dial" || method == "DialContext")
}

// goKeyPair is a TLS certificate's loading.
func goKeyPair(qual, method string) bool {
	return qual == "crypto/tls" && (method == "X509KeyPair" || method == "LoadX509KeyPair")
}

// valueModels are the directories of libraries whose classes' constructors
// make a value from a request's data (a validated model, an ORM's row),
// not an object to reuse.
var valueModels = []string{"/pydantic/", "/pydantic_core/", "/attr/", "/attrs/", "/msgspec/", "/django/db/models/",
	"/sqlalchemy/orm/", "/peewee", "/activerecord", "/activemodel", "/dry-struct", "/virtus/"}

// valueModel says a constructor's file is a value model library's.
func valueModel(file string) bool {
	return slices.ContainsFunc(valueModels, func(d string) bool { return strings.Contains(file, d) })
}

// jvmValueClass says a JVM class's constructor makes a value from its
// arguments (a String, a collection, a stream over them), not an object
// to reuse.
func jvmValueClass(class string) bool {
	class = strings.ReplaceAll(class, "/", ".")
	if strings.HasPrefix(class, "java.lang.") || strings.HasPrefix(class, "java.io.") {
		return true
	}
	rest, ok := strings.CutPrefix(class, "java.util.")
	return ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z'
}

// splitFrame splits a function's name into its qualifier (package,
// class, module, type) and its own name, in the shapes profiles give:
// Go's "compress/flate.NewWriter" and "text/template.(*Template).Parse",
// the JVM's "java.util.regex.Pattern.compile", "java/util/regex/Pattern.compile",
// "Ljava/util/regex/Pattern;::compile" and perf maps' "T pkg.C.m(args)",
// Rust's "regex::Regex::new::h0123...", Ruby's "Mash#initialize",
// Python's "Mash.__init__".
func splitFrame(name string) (qual, method string) {
	name = rustHash.ReplaceAllString(name, "")
	if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i] // a JVM method's or a C++ function's parameters
	}
	if i := strings.LastIndexByte(name, ' '); i >= 0 {
		name = name[i+1:] // a perf map's return type
	}
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") {
		name = name[:i] // a Go generic's type arguments
	}
	if cls, m, ok := strings.Cut(name, ";::"); ok && strings.HasPrefix(cls, "L") {
		return strings.ReplaceAll(cls[1:], "/", "."), m
	}
	for _, sep := range []string{"::", "#", "."} {
		if i := strings.LastIndex(name, sep); i >= 0 {
			return name[:i], name[i+len(sep):]
		}
	}
	return "", name
}

// fileExt is a file name's extension, with its dot.
func fileExt(file string) string {
	if i := strings.LastIndexByte(file, '.'); i >= 0 && i > strings.LastIndexByte(file, '/') {
		return file[i:]
	}
	return ""
}
