package prose

import "perflab/internal/runfmt"

// constructorWords word a library constructor called per request, and
// how to build once in the service's language.
var constructorWords = oneKind(runfmt.FindingConstructor, ctorTitle, ctorDetail,
	advices{runfmt.AdviceBuildOnce: ctorAdvice})

// "compress/flate.NewWriter built on every request under
// main.(*gzipWriter).Write: 21% of CPU, 164.3 µs/request"
func ctorTitle(v view, p *Prose) {
	p.say("%v built on every request under %v: ", code(ctorEntry(v).Function), code(label(v.culprit())))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
}

// ctorEntry is the constructor a finding names.
func ctorEntry(v view) runfmt.FuncEvidence {
	if es := v.funcs(runfmt.RoleEntry); len(es) > 0 {
		return es[0]
	}
	return runfmt.FuncEvidence{}
}

func ctorDetail(v view, p *Prose) {
	ctor, user := ctorEntry(v), v.culprit()
	p.say("%v spends ", code(label(user)))
	perRequest(p, v.val(runfmt.FigShare), v.val(runfmt.FigCPUPerRequest))
	p.say(" in %v, a constructor", code(ctor.Function))
	if lib := v.funcs(runfmt.RoleLibrary); len(lib) > 0 {
		p.say(" that %v runs", code(lib[0].Function))
	}
	p.words(": it builds the same object anew on every request")
	if v.val(runfmt.FigBytesPerRequest) > 0 {
		p.say(", allocating %v of state each time (%v objects), which the collector then frees", v.fig(runfmt.FigBytesPerRequest), v.fig(runfmt.FigObjectsPerRequest))
	}
	p.words(".")
	if lib := v.funcs(runfmt.RoleLibrary); len(lib) > 0 {
		if ms := v.funcs(runfmt.RoleSite); len(ms) > 0 {
			p.say(" %v builds it on first use of an object made per request by %v in %v.", code(lib[0].Function), code(ms[0].Callee), code(short(ms[0])))
		} else {
			p.say(" %v builds it on each call, or on first use of an object made per request.", code(lib[0].Function))
		}
	}
}

// ctorAdvice says how to build once in the service's language.
func ctorAdvice(v view, p *Prose) {
	switch runfmt.Runtime(v.set(runfmt.SettingRuntime)) {
	case runfmt.RuntimeJVM:
		p.words("Build it once and reuse it: a static final field for thread-safe objects (Pattern, ObjectMapper, DateTimeFormatter, JAXBContext, HttpClient), a ThreadLocal or a pool for the others (Cipher, MessageDigest, Deflater, DocumentBuilder, SimpleDateFormat).")
	case runfmt.RuntimePython:
		p.words("Build it once and reuse it: at module level or when the app starts (a compiled pattern, a template, a requests.Session, a client), or cached by its inputs (functools.lru_cache); re keeps only a few compiled patterns.")
	case runfmt.RuntimeRuby:
		p.words("Build it once and reuse it: in a constant or a memoised instance variable set when the app starts.")
	case runfmt.RuntimeNode:
		p.words("Build it once and reuse it: at module scope (a RegExp literal, a compiled template, a client with keep-alive), not inside the handler.")
	case runfmt.RuntimeGo, "":
		p.say("Build it once and reuse it: in a package-level variable or a field set up at start for what is safe to share (a %v, a template, a client), or in a %v of objects with per-use state (gzip and flate writers, encoders, buffers), each %v for the next request.",
			code("*regexp.Regexp"), code("sync.Pool"), code("Reset"))
	default:
		p.words("Build it once and reuse it: a static built on first use (std::sync::LazyLock, once_cell) or a field of the server's shared state, not a value made in the handler.")
	}
}
