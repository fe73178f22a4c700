package ownership

import (
	"path"
	"regexp"
	"strings"
)

// JVM (a perf map written by the JVM, -XX:+DumpPerfMapAtExit or jcmd
// Compiler.perfmap, or by perf-map-agent; async-profiler's names): a
// method's class decides. The JDK's packages (java.*, javax.*, jdk.*,
// sun.*, com.sun.*, and the org.w3c/org.xml APIs it ships) are Std;
// the project's own packages, read from the sources under the project
// root, are User and every other package a Dependency named by it; with
// no sources known, the default package and unknown packages are User
// and well-known third-party namespaces (org.springframework, io.netty,
// com.fasterxml...) a Dependency. Perf-map entries that are not methods
// ("Interpreter", "StubRoutines (1)", "I2C/C2I adapters", "new_instance
// Runtime1 stub"), libjvm and the launcher are the Runtime; the JDK's
// other native libraries are Std.

// jvmClass classifies a JVM frame by its name.
func (m *Model) jvmClass(name string) Class {
	class, ok := jvmMethodClass(name)
	if !ok {
		c := Class{Kind: Runtime, Lang: LangJVM, Package: jvmCodePackage}
		if name == "Interpreter" || strings.HasPrefix(name, "Interpreter ") {
			c.mark = markInterp
		}
		return c
	}
	pkg := jvmPackage(class)
	c := Class{Lang: LangJVM, Package: pkg, mark: markScript}
	if c.Package == "" {
		c.Package = class
	}
	switch {
	case isJDKPackage(pkg):
		c.Kind = Std
	case m != nil && len(m.jvmPkgs) > 0:
		c.Kind = Dependency
		if m.jvmUser(pkg) {
			c.Kind = User
		}
	case pkg != "" && hasAnyPrefix(pkg+".", jvmThirdParty):
		c.Kind = Dependency
	default:
		c.Kind = User
	}
	if c.Kind != User {
		c.Role = jvmRole(pkg, name)
	}
	return c
}

// jvmCodePackage is the package of the JVM's generated code that is not
// a method: the interpreter, stubs and adapters, as a perf map or
// async-profiler names them.
const jvmCodePackage = "JVM"

// namesJavaCode reports whether c is of the JVM's generated code named as
// such: a Java method, or the JVM's code that is not one (jvmCodePackage).
// perf names neither without the JVM's perf map.
func (c *Class) namesJavaCode() bool {
	return c.Lang == LangJVM && (c.mark&markScript != 0 || c.Package == jvmCodePackage)
}

// jvmUser reports whether pkg is one of the project's packages or below
// one.
func (m *Model) jvmUser(pkg string) bool {
	for p := pkg; ; {
		if m.jvmPkgs[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// jvmMethod matches a JVM method in the shapes profilers print: the perf
// map's "int com.x.Server.handle(java.lang.String)" (return type,
// parameters), perflab's "com.x.Server.handle", perf-map-agent's
// "Lcom/x/Server;::handle" and async-profiler's "com/x/Server.handle".
// Group 1 is the class and method.
var (
	jvmPerfMap = regexp.MustCompile(`^(?:[\w$.<>\[\]]+ )?([\w$.<>/]+\.[\w$<>]+)\(.*\)$`)
	jvmAgent   = regexp.MustCompile(`^L([\w$/]+);::([\w$<>]+)`)
	jvmPlain   = regexp.MustCompile(`^([A-Za-z_$][\w$]*(?:[./][A-Za-z_$][\w$]*)*)[./]([\w$<>]+)$`)
)

// jvmMethodClass returns the class (dotted, with its nested classes) of a
// frame named as a JVM method; ok is false for other names.
func jvmMethodClass(name string) (string, bool) {
	name = stripHiddenClass(name)
	var qual string
	switch {
	case strings.HasSuffix(name, ")"):
		mm := jvmPerfMap.FindStringSubmatch(name)
		if mm == nil {
			return "", false
		}
		qual = mm[1]
	case strings.HasPrefix(name, "L") && strings.Contains(name, ";::"):
		mm := jvmAgent.FindStringSubmatch(name)
		if mm == nil {
			return "", false
		}
		qual = mm[1] + "." + mm[2]
	default:
		if !jvmPlain.MatchString(name) {
			return "", false
		}
		qual = name
	}
	qual = strings.ReplaceAll(qual, "/", ".")
	i := strings.LastIndexByte(qual, '.')
	if i <= 0 {
		return "", false
	}
	return qual[:i], true
}

// hiddenSuffix is the address a hidden class's name carries
// ("Server$$Lambda/0x000000080012a3b0", "LambdaForm$MH/0x...").
var hiddenSuffix = regexp.MustCompile(`/0x[0-9a-fA-F]+|/[0-9]+\b`)

// stripHiddenClass removes hidden classes' addresses, which would read
// as a package separator.
func stripHiddenClass(name string) string {
	if !strings.Contains(name, "/0x") && !strings.Contains(name, "$$Lambda") {
		return name
	}
	return hiddenSuffix.ReplaceAllString(name, "")
}

// jvmPackage returns a class's package: the elements before the first
// one starting with an upper-case letter ("java.util.regex.Pattern$Node"
// -> "java.util.regex"); "" for the default package.
func jvmPackage(class string) string {
	elems := strings.Split(class, ".")
	for i, e := range elems {
		if e != "" && (e[0] >= 'A' && e[0] <= 'Z' || e[0] == '$') {
			return strings.Join(elems[:i], ".")
		}
	}
	if len(elems) > 1 {
		return strings.Join(elems[:len(elems)-1], ".")
	}
	return ""
}

// isJDKPackage reports whether pkg is the JDK's.
func isJDKPackage(pkg string) bool {
	return hasAnyPrefix(pkg+".", []string{
		"java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.dom.", "org.xml.sax.", "org.ietf.jgss.", "org.jcp.xml.",
	})
}

// jvmThirdParty are namespaces of well-known JVM libraries and frameworks,
// for when the project's own packages are not known.
var jvmThirdParty = []string{
	"org.springframework.", "io.netty.", "com.fasterxml.", "org.apache.", "com.google.", "io.micrometer.",
	"org.hibernate.", "kotlin.", "kotlinx.", "scala.", "akka.", "ch.qos.logback.", "org.slf4j.", "reactor.",
	"io.undertow.", "org.eclipse.", "io.vertx.", "com.zaxxer.", "org.postgresql.", "com.mysql.", "org.mariadb.",
	"org.h2.", "org.sqlite.", "org.hsqldb.", "oracle.jdbc.", "com.microsoft.sqlserver.", "org.jooq.", "org.mybatis.",
	"io.grpc.", "io.quarkus.", "io.micronaut.", "io.helidon.", "org.glassfish.", "jakarta.", "com.squareup.",
	"okhttp3.", "okio.", "io.projectreactor.", "io.opentelemetry.", "io.prometheus.", "org.jetbrains.",
	"net.bytebuddy.", "org.objectweb.asm.", "lombok.", "org.junit.", "io.dropwizard.", "org.yaml.", "com.esotericsoftware.",
	"io.reactivex.", "org.aspectj.", "org.codehaus.", "com.typesafe.", "org.joda.", "io.lettuce.", "redis.clients.",
	"org.mongodb.", "com.mongodb.", "com.datastax.", "software.amazon.", "com.amazonaws.",
}

// looksJVM reports whether name has the shape of a JVM method only the
// JVM gives: a perf map's return type and parameters, or perf-map-agent's
// "Lcom/x/Y;::m".
func looksJVM(name string) bool {
	if strings.HasPrefix(name, "L") && strings.Contains(name, ";::") {
		return true
	}
	return strings.HasSuffix(name, ")") && strings.Contains(name, " ") && jvmPerfMap.MatchString(name)
}

// isJVMFile reports whether file is JVM source.
func isJVMFile(file string) bool {
	switch path.Ext(file) {
	case ".java", ".kt", ".scala", ".groovy", ".clj":
		return true
	}
	return false
}

// jvmLibClass classifies a frame in a JVM's native library: libjvm and
// the launcher are the Runtime (its compilers, collectors and
// interpreter marked), the JDK's other libraries (libjava, libnio,
// libzip...) Std.
func jvmLibClass(name, base string) Class {
	if !strings.HasPrefix(base, "libjvm") && !strings.HasPrefix(base, "libjli") && base != "java" {
		return Class{Kind: Std, Lang: LangJVM, Package: strings.TrimSuffix(base, ".so")}
	}
	c := Class{Kind: Runtime, Lang: LangJVM, Package: "libjvm"}
	switch {
	case hasAnyPrefix(name, hotspotJIT):
		c.mark = markJIT
	case hasAnyPrefix(name, hotspotGC):
		c.mark = markGC
	case hasAnyPrefix(name, hotspotInterp):
		c.mark = markInterp
	}
	return c
}

// hotspotJIT are HotSpot's JIT compilers (C1, C2, JVMCI) and their
// broker: every compilation runs under CompileBroker.
var hotspotJIT = []string{
	"CompileBroker::", "C2Compiler::", "Compiler::compile_method", "Compilation::", "Compile::", "JVMCICompiler::",
	"CompileTask::", "CompilationPolicy::", "ciEnv::register_method",
}

// hotspotGC are HotSpot's collectors: G1, Parallel, Serial, ZGC,
// Shenandoah, the work they share, and the VM operations the VM thread
// runs a collection in at a safepoint (its other operations are not the
// collector's).
var hotspotGC = []string{
	"VM_G1", "VM_GenCollect", "VM_ParallelGC", "VM_ParallelCollect", "VM_CollectForMetadataAllocation",
	"VM_ZOperation", "VM_Shenandoah", "VM_CollectForAllocation",
	"G1", "PSScavenge", "PSParallelCompact", "PSPromotionManager", "ParallelScavengeHeap", "Shenandoah", "ZHeap",
	"ZMark", "ZRelocate", "ZDriver", "ZDirector", "ZCollectedHeap", "ZBarrier", "ZGeneration", "SerialHeap",
	"DefNewGeneration", "TenuredGeneration", "MarkSweep", "GenCollectedHeap", "CollectedHeap::", "ReferenceProcessor::",
	"WeakProcessor::", "StringDedup", "GCTaskThread", "ConcurrentGCThread", "GCTraceTime", "OopStorage::",
}

// hotspotInterp are HotSpot's interpreter and its runtime calls.
var hotspotInterp = []string{"TemplateInterpreter", "InterpreterRuntime::", "BytecodeInterpreter", "AbstractInterpreter"}
