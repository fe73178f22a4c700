package report

import (
	"fmt"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The words of a CPU profile's stack reach (run.json's
// profiling.stack_reach and profiles[].stacks) and of the runtime's own
// work (profiling.runtime_work): what was seen, and what to do in the
// service's language. The languages are the ownership model's (go,
// python, ruby, node, jvm, rust, native; "" is C or C++).
const (
	langGo     = string(runfmt.RuntimeGo)
	langPython = string(runfmt.RuntimePython)
	langRuby   = string(runfmt.RuntimeRuby)
	langNode   = string(runfmt.RuntimeNode)
	langJVM    = string(runfmt.RuntimeJVM)
	langRust   = "rust"
)

// ReachText is why a profile's stacks do not reach the user's code, in
// one sentence without its period: "98% of the samples have at most 2
// frames (median 1): the stacks stop before reaching your code".
func ReachText(v *runfmt.StackReach) string {
	share := units.FormatPct(100 * v.Share)
	switch v.Why {
	case runfmt.ReachShallow:
		s := fmt.Sprintf("%s of the samples have at most %d frames (median %d): the stacks stop before reaching your code", share, v.ShallowFrames, v.MedianFrames)
		switch {
		case v.Binary != "" && v.NoSymbols:
			s += fmt.Sprintf("; %s has no symbol table", v.Binary)
		case v.Binary != "":
			s += fmt.Sprintf("; %s appears to be built without frame pointers (%s of its functions set one up; a heuristic)", v.Binary, units.FormatPct(100*v.FramePointerShare))
		}
		return s
	case runfmt.ReachRuntimeOnly:
		return fmt.Sprintf("%s of the samples have no frame of your code: perf sees the %s runtime, not the code it runs", share, v.Lang)
	case runfmt.ReachUnnamed:
		return fmt.Sprintf("%s of the samples have no frame of your code and %s end in code no one could name", share, units.FormatPct(100*v.UnnamedShare))
	}
	return fmt.Sprintf("%s of the samples have no frame of what perflab takes for your code", share)
}

// ReachRemedy is the flag or rebuild that makes the stacks reach the
// user's code, a native binary's symbols first when it has none.
func ReachRemedy(v *runfmt.StackReach) string {
	var r string
	switch v.Fix {
	case runfmt.FixUnwind:
		r = prose.UnwindRemedy(v.Lang)
	case runfmt.FixNaming:
		r = prose.NamingRemedy(v.Lang)
	default:
		r = "say which code is yours: --user-code REGEX (matched against function names and files), or --src DIR (the project's directory)"
	}
	if v.SymbolsLang != "" {
		r = prose.NamingRemedy(v.SymbolsLang) + "; and " + r
	}
	return r
}

// workRemedy says what to do about a share of the runtime's own work w
// (run.json's profiling.runtime_work[].work) in language lang; "" when
// there is nothing specific to say. A run before schema 5 kept its own
// words (RuntimeWork.Remedy).
func workRemedy(w runfmt.RuntimeWork) string {
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
