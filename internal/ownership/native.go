package ownership

import (
	"path"
	"regexp"
	"strings"
)

// Native code (perf's frames: a symbol and the binary it lies in): the
// kernel, the C library, the dynamic loader and libgcc are the Runtime,
// libstdc++ and libc++ Std; an interpreter or VM (libpython and the
// python executable, libruby and ruby, node and libnode, libjvm and java)
// is the Runtime of its language, with its compilers, collectors and
// interpreter marked; the JDK's other libraries and CPython's lib-dynload
// modules are Std; any other shared library is a Dependency named by its
// file ("libssl", "libsqlite3"), unless it lies under the project root. A
// frame of an executable is read by the executable's language: a Go
// binary by Go's rules, a Rust binary by Rust's; in a C or C++ executable
// "std::" and "__gnu_cxx::" are Std, reserved names ("__libc_start_main",
// "_start", "__memmove_avx_unaligned") the Runtime, the rest the user's.
// With a source file (DWARF), the file decides first: the cargo registry
// and vendor directories, Rust's library, CPython's sources, system
// headers, the project root.

// binaryClass classifies a frame by the binary it lies in.
func (m *Model) binaryClass(name, bin string) (Class, bool) {
	if bin == "" || !strings.Contains(bin, "/") && m.binary(bin) == nil && !isRuntimeExe(bin) {
		return Class{}, false // not a path: nothing to tell by
	}
	if isPerfMap(bin) {
		return m.jitClass(name), true
	}
	if c, ok := m.libraryClass(bin, name); ok {
		return c, true
	}
	if b := m.binary(bin); b != nil {
		switch b.Lang {
		case LangGo:
			return m.goClass(name, ""), true
		case LangRust:
			return m.rustClass(name, bin), true
		case LangNative:
			return m.executableClass(name, bin), true
		}
	}
	if isSharedLib(bin) {
		return Class{}, false // a library libraryClass did not place: name rules
	}
	switch {
	case m.runtime() == LangGo && !strings.Contains(name, "::"), m.runtime() == "" && looksGo(name):
		return m.goClass(name, ""), true
	case m.rustLike(name) || m.runtime() == LangRust:
		return m.rustClass(name, bin), true
	}
	return m.executableClass(name, bin), true
}

// jitClass classifies a frame of a JIT's perf map (/tmp/perf-PID.map):
// V8's or the JVM's, told by the name.
func (m *Model) jitClass(name string) Class {
	if c, ok := v8NameClass(m, name); ok {
		return c
	}
	if m.runtime() == LangNode {
		return Class{Kind: Unknown, Lang: LangNode}
	}
	return m.jvmClass(name)
}

// libraryClass classifies a frame by a library or executable known by
// its name: the system's, a language runtime's, a database client's, or
// any other shared library (a Dependency). ok is false for an executable
// it does not know.
func (m *Model) libraryClass(bin, name string) (Class, bool) {
	if bin == "" {
		return Class{}, false
	}
	base := path.Base(bin)
	switch {
	case hasAnyPrefix(base, systemLibs):
		return Class{Kind: Runtime, Lang: LangNative, Package: libName(bin)}, true
	case hasAnyPrefix(base, cxxLibs):
		return Class{Kind: Std, Lang: LangNative, Package: libName(bin)}, true
	case strings.HasPrefix(base, "libpython") || pythonExe.MatchString(base):
		if c, ok := cpythonName(name); ok {
			return c, true
		}
		return Class{Kind: Runtime, Lang: LangPython, Package: "CPython"}, true
	case strings.Contains(bin, "/lib-dynload/"):
		return pyStdClass(name, "lib-dynload/"+base), true
	case strings.HasPrefix(base, "libruby") || rubyExe.MatchString(base):
		c := Class{Kind: Runtime, Lang: LangRuby, Package: LangRuby}
		switch {
		case rubyGCFuncs[name]:
			c.mark = markGC
		case rubyEvalFuncs[name]:
			c.mark = markInterp
		}
		return c, true
	case isNodeExe(base) || strings.HasPrefix(base, "libnode"):
		if c, ok := v8NameClass(m, name); ok {
			return c, true
		}
		return Class{Kind: Runtime, Lang: LangNode, Package: LangNode}, true
	case strings.HasPrefix(base, "libjvm") || strings.HasPrefix(base, "libjli") || base == "java" ||
		strings.Contains(bin, "/lib/jvm/") && isSharedLib(bin):
		return jvmLibClass(name, base), true
	}
	if c, ok := packagedLib(bin); ok {
		return c, true
	}
	if !isSharedLib(bin) {
		return Class{}, false
	}
	c := Class{Kind: Dependency, Lang: LangNative, Package: libName(bin)}
	if under, known := m.underRoot(bin); known && under {
		c.Kind = User
	}
	if hasAnyPrefix(base, dbLibs) {
		c.Role = Database
	}
	return c, true
}

// packagedLib classifies a native extension installed by a language's
// package manager (numpy's .so in site-packages, a gem's .so, a node
// addon's .node) as the package that installed it.
func packagedLib(bin string) (Class, bool) {
	if !isSharedLib(bin) && !strings.HasSuffix(bin, ".node") {
		return Class{}, false
	}
	var c Class
	switch {
	case strings.Contains(bin, "/site-packages/") || strings.Contains(bin, "/dist-packages/"):
		rest, _ := afterMarker(bin, "/site-packages/", "/dist-packages/")
		c = Class{Kind: Dependency, Lang: LangPython, Package: pyModule(rest)}
		c.Role = pyRole(c.Package, bin, "")
	case strings.Contains(bin, "/node_modules/"):
		rest, _ := afterMarker(bin, "/node_modules/")
		c = Class{Kind: Dependency, Lang: LangNode, Package: npmPackage(rest)}
		c.Role = dbRole(nodeDBPackages, c.Package)
	case gemDir.MatchString(bin):
		g := gemDir.FindStringSubmatch(bin)
		c = Class{Kind: Dependency, Lang: LangRuby, Package: g[1], Version: g[2], Role: dbRole(rbDBGems, g[1])}
	default:
		return Class{}, false
	}
	return c, true
}

// systemLibs are the C library, the loader, libgcc and friends: the
// system under every program.
var systemLibs = []string{
	"libc.so", "libc-", "ld-linux", "ld-musl", "libpthread", "libm.so", "libm-", "libdl", "librt", "libgcc_s",
	"linux-vdso", "libresolv", "libutil", "libcrypt.so", "libnss_", "libmvec", "libanl", "ld64.so", "libmusl",
}

// cxxLibs are C++'s standard libraries.
var cxxLibs = []string{"libstdc++", "libc++", "libc++abi", "libsupc++"}

// dbLibs are database client libraries.
var dbLibs = []string{"libsqlite3", "libpq.", "libmysqlclient", "libmariadb", "libodbc", "libclntsh", "libsybdb"}

var (
	pythonExe = regexp.MustCompile(`^(python[0-9.]*[dmu]*|pypy[0-9.]*)$`)
	rubyExe   = regexp.MustCompile(`^ruby[0-9.]*$`)
)

// isRuntimeExe reports whether base names an interpreter or VM
// executable.
func isRuntimeExe(base string) bool {
	return pythonExe.MatchString(base) || rubyExe.MatchString(base) || isNodeExe(base) || base == "java"
}

// isSharedLib reports whether bin names a shared library.
func isSharedLib(bin string) bool {
	base := path.Base(bin)
	return strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")
}

// isPerfMap reports whether bin is a JIT's perf map.
func isPerfMap(bin string) bool {
	base := path.Base(bin)
	return strings.HasPrefix(base, "perf-") && strings.HasSuffix(base, ".map")
}

// libName names a shared library without its version: "libssl.so.3" ->
// "libssl", "libc.so.6" -> "libc", "ld-linux-x86-64.so.2" ->
// "ld-linux-x86-64".
func libName(bin string) string {
	if bin == "" {
		return ""
	}
	base := path.Base(bin)
	if i := strings.Index(base, ".so"); i > 0 {
		base = base[:i]
	}
	if strings.HasPrefix(base, "libc-") {
		return "libc"
	}
	return base
}

// executableClass classifies a symbol of a C or C++ executable (or an
// executable of unknown language).
func (m *Model) executableClass(name, bin string) Class {
	if isReservedC(name) {
		return Class{Kind: Runtime, Lang: LangNative, Package: "libc"}
	}
	c := cppClass(name)
	if c.Kind != User {
		return c
	}
	if m.otherExecutable(bin) {
		c.Kind, c.Package = Dependency, path.Base(bin)
	}
	return c
}

// otherExecutable reports whether bin is an executable that is neither
// one of those read for the run (the service's own) nor under the project
// root, when both are known: a tool the service runs, not its code.
func (m *Model) otherExecutable(bin string) bool {
	if m == nil || len(m.spec.Binaries) == 0 || m.binary(bin) != nil {
		return false
	}
	under, known := m.underRoot(bin)
	return known && !under
}

// cppClass classifies a C or C++ symbol by its name: the C++ standard
// library's namespaces are Std, reserved names the Runtime, the rest
// the user's.
func cppClass(name string) Class {
	switch {
	case hasAnyPrefix(name, []string{"std::", "__gnu_cxx::", "__cxxabiv1::", "__cxa_", "operator new", "operator delete", "void std::", "__gnu_debug::"}):
		return Class{Kind: Std, Lang: LangNative, Package: "libstdc++"}
	case isReservedC(name):
		return Class{Kind: Runtime, Lang: LangNative, Package: "libc"}
	}
	return Class{Kind: User, Lang: LangNative}
}

// isReservedC reports whether a C name belongs to the implementation:
// names starting with "__" (libc's, the sanitizers' __tsan_*), the
// program's start-up code, cgo's glue.
func isReservedC(name string) bool {
	switch name {
	case "_start", "_init", "_fini", "main_start", "deregister_tm_clones", "register_tm_clones", "frame_dummy", "start_thread", "clone", "clone3":
		return true
	}
	return strings.HasPrefix(name, "__") || strings.Contains(name, "__tsan") || strings.Contains(name, "__sanitizer") ||
		strings.HasPrefix(name, "_cgo_") || strings.HasPrefix(name, "x_cgo_") || strings.HasPrefix(name, "_dl_") ||
		strings.HasPrefix(name, "_IO_") || strings.HasPrefix(name, "_int_") || strings.HasPrefix(name, "_ZN6__tsan")
}

// nativeFileClass classifies a compiled frame by its source file (DWARF
// line information, py-spy --native): the cargo registry and vendored
// crates, Rust's and C++'s standard libraries, CPython's sources, system
// headers, and the project root. ok is false when the file does not
// tell.
func (m *Model) nativeFileClass(name, file string) (Class, bool) {
	if crate, ver, ok := crateFromPath(file); ok {
		c := Class{Kind: Dependency, Lang: LangRust, Package: crate, Version: ver}
		if mod := m.crate(crate); mod != nil && mod.User {
			c.Kind = User
		}
		c.Role = rustRole(crate)
		return c, true
	}
	if crate, ok := rustLibraryPath(file); ok {
		return Class{Kind: Std, Lang: LangRust, Package: crate}, true
	}
	if c, ok := cpythonFileClass(name, file); ok {
		return c, true
	}
	switch {
	case strings.HasPrefix(file, "/usr/include/c++/"), strings.Contains(file, "/include/c++/"):
		return Class{Kind: Std, Lang: LangNative, Package: "libstdc++"}, true
	case strings.HasPrefix(file, "/usr/include/"), strings.Contains(file, "/sysdeps/"), strings.Contains(file, "/glibc-"):
		return Class{Kind: Runtime, Lang: LangNative, Package: "libc"}, true
	}
	if !isSourceFile(file) {
		return Class{}, false
	}
	lang := LangNative
	if strings.HasSuffix(file, ".rs") {
		lang = LangRust
	}
	if under, known := m.underRoot(file); known {
		if under {
			return Class{Kind: User, Lang: lang}, true
		}
		return Class{Kind: Dependency, Lang: lang, Package: path.Base(path.Dir(file))}, true
	}
	return Class{}, false
}

// pkgKernel is the Package of the kernel's frames.
const pkgKernel = "kernel"

// isNodeExe reports whether base names node's executable.
func isNodeExe(base string) bool {
	return base == "node" || base == "nodejs"
}
