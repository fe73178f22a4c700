package ownership

import (
	"path"
	"regexp"
	"strings"
)

// Node (V8's perf map with --perf-basic-prof, as perflab names its frames:
// the function with its file, "(anonymous):LINE" for an unnamed one; raw
// perf-map names "JS:*summarize /srv/app.js:2:19" are read too): a file
// under node_modules is the Dependency named by its package ("express",
// "@prisma/client"); node's built-in modules ("node:internal/...",
// "node:fs") are Std; V8's builtins, bytecode handlers, stubs and node's
// C++ (in the node executable or libnode) are the Runtime. Any other
// file is the project root's to decide.

// jsFileClass classifies a JavaScript frame by its file.
func (m *Model) jsFileClass(name, file string) Class {
	file = strings.TrimPrefix(file, "file://")
	c := Class{Lang: LangNode}
	if strings.HasPrefix(file, "node:") {
		c.Kind, c.Package = Std, LangNode
		return c
	}
	if rest, ok := afterMarker(file, "/node_modules/"); ok || strings.HasPrefix(file, "node_modules/") {
		if !ok {
			rest = strings.TrimPrefix(file, "node_modules/")
		}
		c.Kind, c.Package = Dependency, npmPackage(rest)
		c.Role = dbRole(nodeDBPackages, c.Package)
		return c
	}
	return m.scriptDoubt(c, file)
}

// npmPackage names the package of a path under node_modules:
// "express/lib/router.js" -> "express", "@prisma/client/x.js" ->
// "@prisma/client".
func npmPackage(rest string) string {
	first, after, _ := strings.Cut(rest, "/")
	if strings.HasPrefix(first, "@") {
		second, _, _ := strings.Cut(after, "/")
		return first + "/" + second
	}
	return first
}

// isJSFile reports whether file is JavaScript or TypeScript source.
func isJSFile(file string) bool {
	switch path.Ext(file) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx":
		return true
	}
	return false
}

// v8Raw is how V8 names code in a perf map (node --perf-basic-prof):
// "JS:~digest /srv/app.js:13:23", where ~ ^ * + say which tier compiled
// it; group 1 is the function, group 2 the file.
var v8Raw = regexp.MustCompile(`^(?:JS|LazyCompile|Function|InterpretedFunction|Eval|Script):[~^*+-]?(.*?) ?(\S+):[0-9]+:[0-9]+$`)

// v8NameClass classifies V8 frames known by their name: raw perf-map
// names of JavaScript (by their file) and V8's builtins, handlers and
// stubs, and V8's and node's C++ (the Runtime).
func v8NameClass(m *Model, name string) (Class, bool) {
	if mm := v8Raw.FindStringSubmatch(name); mm != nil {
		return script(m.jsFileClass(mm[1], mm[2])), true
	}
	for _, p := range v8RuntimePrefixes {
		if strings.HasPrefix(name, p) {
			return v8Runtime(name), true
		}
	}
	return Class{}, false
}

// v8RuntimePrefixes start the names of V8's and node's own code.
var v8RuntimePrefixes = []string{
	"Builtin:", "BytecodeHandler:", "Stub:", "Handler:", "RegExp:", "Builtins_", "v8::", "node::", "uv_", "uv__",
	"cppgc::", "heap::base::",
}

// v8Runtime classifies a frame of V8 or node's C++, marking V8's
// compilers, collector and interpreter.
func v8Runtime(name string) Class {
	c := Class{Kind: Runtime, Lang: LangNode, Package: "V8"}
	if strings.HasPrefix(name, "node::") || strings.HasPrefix(name, "uv_") || strings.HasPrefix(name, "uv__") {
		c.Package = LangNode
	}
	switch {
	case hasAnyPrefix(name, v8JITPrefixes):
		c.mark = markJIT
	case hasAnyPrefix(name, v8GCPrefixes):
		c.mark = markGC
	case isV8Interpreter(name):
		c.mark = markInterp
	}
	return c
}

// v8JITPrefixes are V8's compilers: TurboFan and Turboshaft, Maglev,
// Sparkplug, the bytecode generator and parser that feed Ignition, and
// the wasm compilers.
var v8JITPrefixes = []string{
	"v8::internal::compiler::", "v8::internal::turboshaft::", "v8::internal::maglev::", "v8::internal::baseline::",
	"v8::internal::Compiler::", "v8::internal::OptimizingCompileDispatcher", "v8::internal::interpreter::BytecodeGenerator",
	"v8::internal::Parser::", "v8::internal::ParserBase", "v8::internal::PreParser", "v8::internal::wasm::",
	"v8::internal::Scanner::", "v8::internal::CompilationJob", "v8::internal::OptimizedCompilationJob",
	"v8::internal::UnoptimizedCompilationJob", "v8::internal::BackgroundCompileTask",
}

// v8GCPrefixes are V8's garbage collector (and cppgc's).
var v8GCPrefixes = []string{
	"v8::internal::Heap::CollectGarbage", "v8::internal::Heap::PerformGarbageCollection", "v8::internal::Heap::Scavenge",
	"v8::internal::Heap::MarkCompact", "v8::internal::Heap::MinorMarkSweep", "v8::internal::Heap::CollectAllGarbage",
	"v8::internal::Scavenger", "v8::internal::ScavengerCollector", "v8::internal::MarkCompactCollector",
	"v8::internal::MinorMarkCompactCollector", "v8::internal::MinorMarkSweepCollector", "v8::internal::ConcurrentMarking",
	"v8::internal::IncrementalMarking", "v8::internal::MarkingVisitorBase", "v8::internal::MainMarkingVisitor",
	"v8::internal::ConcurrentMarkingVisitor", "v8::internal::Sweeper", "v8::internal::MarkingBarrier",
	"v8::internal::GCTracer", "v8::internal::ArrayBufferSweeper", "v8::internal::MarkingWorklists",
	"v8::internal::PointersUpdatingVisitor", "v8::internal::Evacuator", "v8::internal::FullEvacuator",
	"v8::internal::RecordMigratedSlotVisitor", "cppgc::internal::Marker", "cppgc::internal::Sweeper",
	"heap::base::",
}

// isV8Interpreter reports whether name is V8's Ignition interpreter: its
// entry trampoline and bytecode handlers.
func isV8Interpreter(name string) bool {
	switch {
	case strings.HasPrefix(name, "BytecodeHandler:"):
		return true
	case strings.HasPrefix(name, "Builtins_Interpreter"), strings.HasPrefix(name, "Builtin:Interpreter"):
		return true
	case strings.HasPrefix(name, "Builtins_") && strings.HasSuffix(name, "Handler"):
		return true // Builtins_LdaZeroHandler, Builtins_CallProperty0Handler
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
