package ownership

import (
	"strings"

	"github.com/google/pprof/profile"
)

// Runtime work. A sample is the runtime's own work when its thread is one
// of the runtime's (the JVM's compiler and GC threads, by the name perf
// records for them), or when its leaf is the runtime's code; then a
// compiler frame anywhere on the stack makes it JIT, a collector frame
// GC, an interpreter frame between the leaf and the first frame of a
// program (user, dependency or standard library) Interpreter, as is the
// C code of CPython or Ruby at the leaf of a stack that shows no Python
// or Ruby frame at all (perf without py-spy or rbspy: the interpreter
// runs code no frame names), and anything else OtherRuntime. A sample
// whose leaf is a program's code is NoWork, even when it called the
// runtime further up.

// Work tells which runtime work the sample with stack (leaf first) on
// thread (perf's comm, "" if unknown) is.
func (m *Model) Work(stack []Frame, thread string) Work {
	if w, ok := threadWork(thread); ok {
		return w
	}
	if len(stack) == 0 {
		return NoWork
	}
	var s workScan
	for i, f := range stack {
		c := m.Classify(f)
		s.add(&c, i == 0)
		if !s.needsAll() {
			break
		}
	}
	return s.result()
}

// workScan accumulates the evidence for a sample's Work, leaf first.
type workScan struct {
	leaf Kind
	// cxxLeaf says the leaf is C++'s standard library, which a VM
	// written in C++ calls (V8's compilers and collectors) as a
	// program does: the sample is the runtime's only if a compiler or
	// collector frame says so.
	cxxLeaf bool
	inLeaf  bool // still in the run of runtime frames at the leaf
	jit, gc bool
	interp  bool
	// vmLeaf says the leaf is CPython's or Ruby's C code, script that a
	// frame of a language's own code was seen.
	vmLeaf, script bool
}

// add takes the next frame toward the root; leaf says it is the first.
func (s *workScan) add(c *Class, leaf bool) {
	if leaf {
		s.leaf, s.inLeaf = c.Kind, true
		s.cxxLeaf = c.Kind == Std && c.Lang == LangNative
		s.vmLeaf = c.Kind == Runtime && (c.Lang == LangPython || c.Lang == LangRuby)
	}
	s.script = s.script || c.mark&markScript != 0
	if s.inLeaf && !vmSide(c) {
		s.inLeaf = false
	}
	s.jit = s.jit || c.mark&markJIT != 0
	s.gc = s.gc || c.mark&markGC != 0
	s.interp = s.interp || s.inLeaf && c.mark&markInterp != 0
}

// vmSide reports whether a frame can be the runtime's own work: the
// runtime's code, code no one named, and C++'s standard library (which a
// VM written in C++ calls: V8's compilers and collectors).
func vmSide(c *Class) bool {
	return c.Kind == Runtime || c.Kind == Unknown || c.Kind == Std && c.Lang == LangNative
}

// needsAll reports whether the rest of the stack can change the result:
// it can only when the leaf is the runtime's, unknown or C++'s library.
func (s *workScan) needsAll() bool {
	return s.leaf == Runtime || s.leaf == Unknown || s.cxxLeaf
}

func (s *workScan) result() Work {
	switch {
	case !s.needsAll():
		return NoWork
	case s.cxxLeaf && !s.jit && !s.gc:
		return NoWork
	case s.jit:
		return JIT
	case s.gc:
		return GC
	case s.interp, s.vmLeaf && !s.script:
		return Interpreter
	case s.leaf == Runtime:
		return OtherRuntime
	}
	return NoWork
}

// threadWork tells the work of a runtime thread from its name, as perf
// records it (truncated to 15 bytes: "C2 CompilerThre").
func threadWork(thread string) (Work, bool) {
	switch {
	case thread == "":
		return NoWork, false
	case strings.Contains(thread, "CompilerThre"), strings.HasPrefix(thread, "JVMCI"):
		return JIT, true
	case hasAnyPrefix(thread, jvmGCThreads):
		return GC, true
	}
	return NoWork, false
}

// jvmGCThreads start the names of the JVM's collector threads (G1,
// Parallel, ZGC, Shenandoah).
var jvmGCThreads = []string{
	"GC Thread", "G1 ", "GC task thread", "ZWorker", "ZDirector", "ZDriver", "ZUnmapper", "ZUncommitter",
	"Shenandoah", "Parallel GC", "Conc GC", "ConcurrentMark",
}

// ReportedWork lists the runtime's own work a run of the runtime lang
// always reports, with its share of the CPU or why the profile cannot
// tell it: the JVM's JIT compiler, collector and interpreter. Nil for the
// other runtimes, whose work is reported when it is some share of the CPU.
func ReportedWork(lang string) []Work {
	if lang == LangJVM {
		return []Work{JIT, GC, Interpreter}
	}
	return nil
}

// Unmeasured says why the classified profile p cannot tell the runtime
// work w apart, "" when it can. The JIT compiler's and the collector's
// work is told by the threads' names (perf's and async-profiler's comm
// label) or the runtime's functions named; a JVM's interpreter by Java
// methods named in the profile (async-profiler's, annotated interpreted
// or compiled, or a perf map's, which names the interpreter's code too):
// perf without a perf map sees interpreted and compiled code alike as
// addresses.
func (c *Classified) Unmeasured(p *profile.Profile, w Work) string {
	if p == nil || len(p.Sample) == 0 {
		return "the CPU profile has no samples"
	}
	var threads, named, java bool
	for _, s := range p.Sample {
		if len(s.Label["comm"]) > 0 {
			threads = true
			break
		}
	}
	for _, loc := range p.Location {
		li := c.info(loc)
		named = named || li.jit || li.gc
		for i := range li.classes {
			java = java || li.classes[i].namesJavaCode()
		}
	}
	switch {
	case (w == JIT || w == GC) && !threads && !named:
		return "the profile names neither the runtime's threads nor its functions"
	case w == Interpreter && c.m.Spec().Runtime == LangJVM && !java:
		return "the profile names no Java method: perf without the JVM's perf map sees interpreted and compiled code alike as addresses (async-profiler tells them apart; jcmd of a JDK 17+ writes the map)"
	}
	return ""
}
