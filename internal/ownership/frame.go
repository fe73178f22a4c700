package ownership

import (
	"path"
	"strings"
)

// Frame is one stack frame as a profile names it.
type Frame struct {
	// Func is the function's name ("main.handler", "Flask.wsgi_app",
	// "regex_automata::meta::Regex::new", "int Server.handle(String)").
	Func string
	// File is its source file; a perf profile without line information
	// carries the binary here instead, as perflab's do.
	File string
	// Binary is the executable or library the frame's address lies in
	// (profile.Mapping.File), "" when not known.
	Binary string
}

// Class is what Classify tells of a frame.
type Class struct {
	Kind Kind `json:"kind"`
	// Lang is the frame's language or runtime (a Lang* constant), "" when
	// it cannot be told.
	Lang string `json:"lang,omitempty"`
	// Package names the unit that owns the code: for a dependency the Go
	// module, crate, npm or PyPI package, gem, JVM package or shared
	// library ("google.golang.org/protobuf", "regex-automata", "flask",
	// "libssl"); for the standard library its package ("fmt", "json",
	// "java.util.regex", "core"); for the runtime its name ("runtime",
	// "CPython", "libjvm", "V8", "libc", "kernel"). User code carries its
	// package where the language says it.
	Package string `json:"package,omitempty"`
	// Version is the dependency's version, where known.
	Version string `json:"version,omitempty"`
	// Role is what the code does for its caller (Database), if known.
	Role Role `json:"role,omitempty"`
	mark mark
}

// Label names the code as a line of text does: its package and version
// ("google.golang.org/protobuf v1.36.12", "regex-automata 0.4.9", "json"),
// or its kind when it has no package.
func (c Class) Label() string {
	switch {
	case c.Package == "":
		return c.Kind.String()
	case c.Version != "":
		return c.Package + " " + c.Version
	}
	return c.Package
}

// mark flags frames that tell which runtime work a sample is.
type mark uint8

const (
	markJIT mark = 1 << iota
	markGC
	markInterp
	// markScript flags a frame of an interpreted or JIT-compiled
	// language's own code (a Python, Ruby or JavaScript function, a JVM
	// method, Ruby's core methods): a profiler that shows them sees the
	// program, not just its VM.
	markScript
	// markMeasuring flags a frame of perflab's measuring: profile and
	// trace writing the service does for perflab (see measuring.go).
	markMeasuring
)

// script marks c as a frame of a language's own code, unless it is the
// runtime's.
func script(c Class) Class {
	if c.Kind != Runtime && c.Kind != Unknown {
		c.mark |= markScript
	}
	return c
}

// Classify tells whose code the frame f is. Rules, in order:
//   - a function name with control bytes (NUL...) is never user code;
//     unnamed frames and raw addresses are Unknown (or the runtime's, when
//     their binary is libc, the kernel or a VM);
//   - --user-code, when given, decides alone between User and the rest;
//   - otherwise the file path decides where it is conclusive (Go's module
//     cache, the cargo registry, site-packages, node_modules, gems, a
//     language's own library), then the binary the frame lies in (the
//     kernel, libc, an interpreter, libjvm, a shared library, a Go or
//     Rust executable), then the function name in the language's
//     shape;
//   - the project root (--src) decides when in doubt: a file under it is
//     the user's, a file elsewhere a dependency's.
//
// The per-language rules are documented on the package.
func (m *Model) Classify(f Frame) Class {
	if hasControl(f.Func) {
		return Class{Kind: Unknown}
	}
	c := m.classify(f)
	if m == nil || m.re == nil || c.Kind == Unknown {
		return c
	}
	switch {
	case m.re.MatchString(f.Func) || f.File != "" && m.re.MatchString(f.File):
		c.Kind = User
	case c.Kind == User:
		c.Kind = Dependency
	}
	return c
}

// hasControl reports whether s holds a control byte (C0 or DEL).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// noFile are what profilers write where they do not know the file.
var noFile = map[string]bool{"unknown": true, "(unknown)": true, "?": true, "??": true, "??:?": true}

// classify applies the default rules.
func (m *Model) classify(f Frame) Class {
	name, file := demangled(f.Func), f.File
	if noFile[file] {
		file = "" // rbspy's and addr2line's word for a file they could not tell
	}
	bin := f.Binary
	if bin == "" && file != "" && !isSourceFile(file) && !isLauncher(name, file) {
		bin = file // perf without lines: the binary is the file
	}
	if c, ok := pseudoFrame(name, bin); ok {
		return c
	}
	if name == "" || isAddress(name) {
		if c, ok := m.libraryClass(bin, name); ok && c.Kind == Runtime {
			return c
		}
		return Class{Kind: Unknown, Package: libName(bin)}
	}
	if isLauncher(name, file) {
		// The script belongs to the package that installed it.
		return Class{Kind: Dependency, Lang: launcherLang(name), Package: path.Base(file), mark: markScript}
	}
	if file != "" && file != bin {
		if c, ok := m.fileClass(name, file); ok {
			return c
		}
	}
	if c, ok := m.binaryClass(name, bin); ok {
		return c
	}
	return m.nameClass(name, file)
}

// fileClass classifies by the source file, when it tells.
func (m *Model) fileClass(name, file string) (Class, bool) {
	switch {
	case strings.HasPrefix(file, "node:"), isJSFile(file):
		return script(m.jsFileClass(name, file)), true
	case isPythonFile(file):
		return script(m.pyFileClass(name, file)), true
	case isRubyFile(file) || rubyPseudoFile(file):
		return script(m.rbFileClass(name, file)), true
	case strings.HasSuffix(file, ".go"), isGoAsm(file):
		return m.goClass(name, file), true
	case isJVMFile(file):
		return m.jvmClass(name), true
	}
	return m.nativeFileClass(name, file)
}

// nameClass classifies a frame by its name alone, reading it in the
// shape of the service's runtime when nothing else tells.
func (m *Model) nameClass(name, file string) Class {
	if c, ok := v8NameClass(m, name); ok {
		return c
	}
	switch m.runtime() {
	case LangGo:
		return m.goClass(name, file)
	case LangJVM:
		return m.jvmClass(name)
	case LangRust:
		return m.rustClass(name, "")
	case LangPython:
		return pyNativeClass(name)
	case LangRuby:
		// rbspy names a method of Ruby's core without its file.
		return Class{Kind: Std, Lang: LangRuby, Package: "ruby core", mark: markScript}
	}
	switch {
	case m.rustLike(name):
		return m.rustClass(name, "")
	case strings.Contains(name, "::"):
		return cppClass(name)
	case looksGo(name):
		return m.goClass(name, file)
	case looksJVM(name):
		return m.jvmClass(name)
	case isReservedC(name):
		return Class{Kind: Runtime, Lang: LangNative, Package: "libc"}
	case strings.HasPrefix(name, "type:") || goAsmHelpers[name]:
		return m.goClass(name, file)
	}
	return m.doubt(Class{Lang: m.runtime()}, file)
}

// doubt settles a frame the language's rules could not place: by the
// project root when file is an absolute path and a root is known (under
// it the user's, elsewhere a dependency named by its directory), else
// the user's.
func (m *Model) doubt(c Class, file string) Class {
	if under, known := m.underRoot(file); known && !under {
		c.Kind = Dependency
		if c.Package == "" {
			c.Package = path.Base(path.Dir(file))
		}
		return c
	}
	c.Kind = User
	return c
}

// scriptDoubt settles a script's file as doubt does, naming the user's
// file by its module ("app" for app.py) and another's by its directory.
func (m *Model) scriptDoubt(c Class, file string) Class {
	c = m.doubt(c, file)
	if c.Kind == User {
		c.Package = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	return c
}

// pseudoFrame classifies the bracketed names profilers give frames that
// are not functions: "[kernel.kallsyms]", "[unknown]", "[vdso]", rbspy's
// "[c function]".
func pseudoFrame(name, bin string) (Class, bool) {
	if isKernel(bin) || isKernel(name) {
		return Class{Kind: Runtime, Lang: LangNative, Package: pkgKernel}, true
	}
	if !strings.HasPrefix(name, "[") && !strings.HasPrefix(name, "(") {
		return Class{}, false
	}
	switch {
	case strings.HasPrefix(name, "[c function]"):
		// rbspy's Ruby methods written in C: Ruby's core library.
		return Class{Kind: Std, Lang: LangRuby, Package: "ruby core", mark: markScript}, true
	case name == "[vdso]" || bin == "[vdso]":
		return Class{Kind: Runtime, Lang: LangNative, Package: pkgKernel}, true
	case name == "(garbage collection)":
		return Class{Kind: Runtime, Lang: LangRuby, Package: LangRuby, mark: markGC}, true
	case name == "(garbage collector)":
		return Class{Kind: Runtime, Lang: LangNode, Package: "V8", mark: markGC}, true // V8's CPU profiles
	case name == "(program)" || name == "(idle)":
		return Class{Kind: Runtime, Lang: LangNode, Package: "V8"}, true
	case strings.HasPrefix(name, "(anonymous)"):
		return Class{}, false // node names anonymous functions "(anonymous):LINE"
	}
	return Class{Kind: Unknown, Package: libName(bin)}, true
}

// isKernel reports whether s names the kernel as perf does.
func isKernel(s string) bool {
	return strings.HasPrefix(s, "[kernel") || strings.HasPrefix(s, "[guest.kernel") ||
		strings.HasPrefix(path.Base(s), "vmlinux")
}

// isAddress reports whether name is an address a profiler could not
// name: "0x7f3a...", "libfoo.so+0x1a2b", "perf-42.map+0x7f...".
func isAddress(name string) bool {
	if strings.HasPrefix(name, "0x") && isHex(name[2:]) {
		return true
	}
	i := strings.LastIndex(name, "+0x")
	return i > 0 && isHex(name[i+3:]) && !strings.ContainsAny(name[:i], " \t")
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// sourceExts are the extensions of source files, as opposed to binaries
// that perf profiles put in a function's file.
var sourceExts = map[string]bool{
	".go": true, ".s": true, ".S": true, ".py": true, ".pyx": true, ".pyi": true, ".rb": true, ".ru": true, ".rake": true,
	".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true, ".jsx": true, ".tsx": true,
	".java": true, ".kt": true, ".scala": true, ".groovy": true, ".clj": true,
	".rs": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".inc": true, ".inl": true,
	".asm": true, ".zig": true,
}

// isSourceFile reports whether file names source code rather than a
// binary: a known extension, a Python or Ruby pseudo file ("<frozen
// ...>", "<internal:...>"), a node built-in ("node:fs").
func isSourceFile(file string) bool {
	if strings.HasPrefix(file, "<") || strings.HasPrefix(file, "node:") || strings.HasPrefix(file, "file://") {
		return true
	}
	return sourceExts[path.Ext(file)]
}

// isLauncher reports whether a frame is the top level ("<module>",
// "<main>", "<top (required)>") of a console script in a bin directory,
// the entry point pip or gem wrote (gunicorn, puma, rackup), as py-spy
// and rbspy show it.
func isLauncher(name, file string) bool {
	if !strings.HasPrefix(name, "<") || !path.IsAbs(file) || path.Ext(file) != "" {
		return false
	}
	d := path.Dir(file)
	return strings.HasSuffix(d, "/bin") || strings.HasSuffix(d, "/sbin")
}
