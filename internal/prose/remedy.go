package prose

import "perflab/internal/runfmt"

// The remedies of a profile's stacks and of the runtime's own work: what
// makes a runtime's stacks walkable by perf, what lets perf name its
// code, and what to do about its JIT, GC or interpreter. The languages are
// the ownership model's (go, python, ruby, node, jvm, rust, native; ""
// is C or C++): its warnings and the stack reach's words say the same.
const (
	langGo     = string(runfmt.RuntimeGo)
	langPython = string(runfmt.RuntimePython)
	langRuby   = string(runfmt.RuntimeRuby)
	langNode   = string(runfmt.RuntimeNode)
	langJVM    = string(runfmt.RuntimeJVM)
	langRust   = runfmt.LangRust
)

// UnwindRemedy is what makes a runtime's stacks walkable by perf.
func UnwindRemedy(lang string) string {
	switch lang {
	case langRust:
		return `rebuild with frame pointers: RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release; or record with DWARF unwinding (perf record --call-graph dwarf), which costs more per sample`
	case langJVM:
		return "start the JVM with -XX:+PreserveFramePointer, and let it write a perf map (-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit, or jcmd PID Compiler.perfmap)"
	case langNode:
		return "start node with --perf-basic-prof (and --interpreted-frames-native-stack, so interpreted functions get frames)"
	case langGo:
		return "Go keeps frame pointers: check that the profile is of the service's process, and that perf recorded call graphs (-g)"
	case langPython:
		return "profile with py-spy (perflab uses it when installed), or run Python 3.12+ with -X perf"
	case langRuby:
		return "profile with rbspy (perflab uses it when installed)"
	}
	return "rebuild with frame pointers: -fno-omit-frame-pointer in CFLAGS and CXXFLAGS; or record with DWARF unwinding (perf record --call-graph dwarf), which costs more per sample"
}

// NamingRemedy is what lets perf name a runtime's code.
func NamingRemedy(lang string) string {
	switch lang {
	case langJVM:
		return "let the JVM write a perf map: -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (or jcmd PID Compiler.perfmap while it runs), with -XX:+PreserveFramePointer"
	case langNode:
		return "start node with --perf-basic-prof so perf can name JavaScript functions"
	case langPython:
		return "profile with py-spy (perflab uses it when installed), or run Python 3.12+ with -X perf"
	case langRuby:
		return "profile with rbspy (perflab uses it when installed)"
	case langRust:
		return "keep symbols: do not strip the binary (Cargo.toml's [profile.release] strip = false, cargo's default; debug = 1 adds file and line information)"
	}
	return "keep the symbol table: do not strip the binary (no -s, no strip), or install its debug symbols"
}

// WorkRemedy says what to do about a share of the runtime's own work w
// (run.json's profiling.runtime_work[].work) in language lang; "" when
// there is nothing specific to say. A run before schema 5 kept its own
// words (RuntimeWork.Remedy).
func WorkRemedy(w runfmt.RuntimeWork) string {
	if w.Remedy != "" || w.Lang == "" {
		return w.Remedy
	}
	switch w.Work {
	case runfmt.WorkJIT:
		switch w.Lang {
		case langJVM:
			return "the JIT compiles while the service warms up: measure after a longer warm-up (--warmup); a share that stays means methods are recompiled (deoptimised) again and again, which -XX:+PrintCompilation shows"
		case langNode:
			return "V8 compiles while the service warms up: measure after a longer warm-up (--warmup); a share that stays means functions are deoptimised and reoptimised, which node --trace-deopt shows"
		}
	case runfmt.WorkGC:
		switch w.Lang {
		case langGo:
			return "allocate less per request (see the allocating lines), or trade memory for CPU: GOGC higher, GOMEMLIMIT as the ceiling"
		case langJVM:
			return "allocate less per request, or give the heap room: -Xms equal to -Xmx, and a collector for the goal (-XX:+UseParallelGC for throughput, -XX:+UseZGC for pauses)"
		case langNode:
			return "allocate less per request, or enlarge the young generation so fewer objects are scavenged: node --max-semi-space-size=64"
		case langPython:
			return "create fewer container objects per request; after start-up, gc.freeze() keeps long-lived objects out of collections"
		case langRuby:
			return "allocate fewer objects per request; GC.stat and RUBY_GC_HEAP_* variables tune the heap"
		}
	case runfmt.WorkInterpreter:
		switch w.Lang {
		case langPython:
			return "CPython runs code perf cannot name: profile with py-spy to see which Python functions"
		case langJVM:
			return "methods still run in the interpreter: measure after a longer warm-up (--warmup)"
		case langNode:
			return "functions still run in V8's interpreter: measure after a longer warm-up, and start node with --interpreted-frames-native-stack to name them"
		case langRuby:
			return "the Ruby VM runs code perf cannot name: profile with rbspy to see which methods"
		}
	}
	return ""
}
