package analysis

import (
	"path"
	"regexp"
	"strings"

	"perflab/internal/stacks"
)

// UserCode decides which frames belong to code the user can change. The zero
// value applies the default rule (see [IsUserFunc]); the fields refine it.
// It is the one classifier of user code: top tables, findings, flame graphs
// and the walk to the frame that owns a cost all ask it.
type UserCode struct {
	// Match, when set, decides alone (--user-code REGEX): a frame is user
	// code exactly when its function name or file matches.
	Match *regexp.Regexp
	// Root is the project's directory (--src, or the launched service's
	// directory): a Python, Ruby or JavaScript file the default rule would
	// call the user's is the user's only when it lies under Root. "" does
	// not restrict.
	Root string
	// UserPrefixes lists function-name prefixes that are always user code
	// (checked first), e.g. "runtime/debug." to study it as if it were yours.
	UserPrefixes []string
	// NotUser lists function-name prefixes that are never user code, e.g. a
	// vendored framework you do not want blamed: "github.com/gin-gonic/".
	NotUser []string
}

// IsUser reports whether the frame named name, defined in file (may be
// empty), is user code under u.
func (u UserCode) IsUser(name, file string) bool {
	if u.Match != nil {
		return u.Match.MatchString(name) || file != "" && u.Match.MatchString(file)
	}
	for _, p := range u.UserPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, p := range u.NotUser {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	if !IsUserFunc(name, file) {
		return false
	}
	return u.Root == "" || !stacks.ScriptSource(file) || !path.IsAbs(file) || underDir(file, u.Root)
}

// underDir says whether file lies in dir or below it.
func underDir(file, dir string) bool {
	dir = strings.TrimRight(path.Clean(dir), "/")
	return dir == "" || strings.HasPrefix(path.Clean(file), dir+"/")
}

// IsUserFunc is the default user-code rule. Not user code: Go standard
// library and runtime functions ("runtime.mallocgc", "net/http.(*conn).serve",
// "internal/...", compiler-generated "type:.eq..."), bracketed pseudo frames
// ("[kernel.kallsyms]", "[unknown]"), raw addresses, reserved C names
// ("__memmove_avx_unaligned", "__tsan_read", cgo glue), frames from libc, the
// dynamic loader, libpthread, libpython or libruby, and Python or Ruby
// standard-library files. User code: everything else, including "main.",
// modules without a dot ("perflab/..."), golang.org/x/... and third-party
// dependencies (site-packages, gems), which the user controls.
func IsUserFunc(name, file string) bool {
	if name == "" || strings.HasPrefix(name, "[") || strings.HasPrefix(name, "0x") || unsymbolized.MatchString(name) {
		return false
	}
	// C names starting with "__" are reserved for the implementation (libc,
	// the race detector's __tsan_*); mangled C++ runtimes name their
	// namespace, e.g. _ZN6__tsan....
	if strings.HasPrefix(name, "__") || strings.Contains(name, "__tsan") || strings.Contains(name, "__sanitizer") || strings.HasPrefix(name, "_cgo_") || strings.HasPrefix(name, "x_cgo_") {
		return false
	}
	if isSystemLib(file) || isSystemLib(name) || isRuntimeBinary(file) || isVMFrame(name) {
		return false
	}
	if s, ok := scriptFile(file); ok {
		return s
	}
	if isLauncherScript(name, file) {
		return false
	}
	if strings.HasPrefix(name, "type:.") || strings.HasPrefix(name, "type..") {
		return false
	}
	if !strings.Contains(name, ".") && (isGoStdFile(file) || goAsmHelpers[name]) {
		return false // runtime assembly such as gcWriteBarrier, memeqbody
	}
	return !isGoStd(name)
}

// unsymbolized matches a frame perf could not name, "BINARY+0xADDR"
// (perf-4242.map+0x7f..., libfoo.so+0x1a2b): no code anyone can point at.
var unsymbolized = regexp.MustCompile(`^\S+\+0x[0-9a-fA-F]+$`)

// goAsmHelpers are the Go runtime's assembly routines that symbolise without
// a package path (in perf profiles of Go binaries, which carry no file).
var goAsmHelpers = map[string]bool{
	"indexbody": true, "indexbytebody": true, "memeqbody": true, "cmpbody": true,
	"countbody": true, "gcWriteBarrier": true, "memmove": true, "memclrNoHeapPointers": true,
	"aeshashbody": true, "callRet": true, "gogo": true, "mcall": true, "morestack": true,
	"asmcgocall": true, "systemstack": true, "systemstack_switch": true,
}

// goStdRoots are the first path elements of the Go standard library
// (`go list std`), cmd and vendor included. A table, not a dot-in-the-path
// test, because module paths such as "perflab" have no dot either.
var goStdRoots = map[string]bool{
	"archive": true, "bufio": true, "bytes": true, "cmp": true, "compress": true,
	"container": true, "context": true, "crypto": true, "database": true,
	"debug": true, "embed": true, "encoding": true, "errors": true,
	"expvar": true, "flag": true, "fmt": true, "go": true, "hash": true,
	"html": true, "image": true, "index": true, "internal": true, "io": true,
	"iter": true, "log": true, "maps": true, "math": true, "mime": true,
	"net": true, "os": true, "path": true, "plugin": true, "reflect": true,
	"regexp": true, "runtime": true, "slices": true, "sort": true,
	"strconv": true, "strings": true, "structs": true, "sync": true,
	"syscall": true, "testing": true, "text": true, "time": true,
	"unicode": true, "unique": true, "unsafe": true, "weak": true,
	"vendor": true, "cmd": true, "gogo": true,
}

// goPackage returns the import path of a Go symbol name:
// "net/http.(*conn).serve" -> "net/http". A generic instantiation's type
// arguments ("slices.Sort[go.shape.[]net/http.Header]") are not part of it.
func goPackage(name string) string {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

// isGoStd reports whether name is a function of the Go standard library.
func isGoStd(name string) bool {
	pkg := goPackage(name)
	root, _, _ := strings.Cut(pkg, "/")
	return goStdRoots[root]
}

// isGoStdFile reports whether file lies in a Go root's standard library,
// e.g. /usr/local/go/src/runtime/asm_amd64.s.
func isGoStdFile(file string) bool {
	i := strings.LastIndex(file, "/src/")
	if i < 0 {
		return false
	}
	root, _, ok := strings.Cut(file[i+len("/src/"):], "/")
	return ok && goStdRoots[root] && (strings.HasSuffix(file, ".s") || strings.HasSuffix(file, ".go"))
}

// systemLibs are shared-object name prefixes of the C library, the loader and
// language runtimes; frames in them are never the user's code.
var systemLibs = []string{
	"libc.so", "libc-", "ld-linux", "ld-musl", "libpthread", "libm.so",
	"libdl", "librt", "libpython", "libruby", "libstdc++", "libgcc_s",
	"linux-vdso", "[vdso]", "vmlinux", "[kernel", "[unknown]",
}

func isSystemLib(file string) bool {
	if file == "" {
		return false
	}
	base := path.Base(file)
	for _, p := range systemLibs {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// scriptFile classifies Python, Ruby and JavaScript frames by their file:
// the interpreter's own library and installed packages (site-packages,
// dist-packages, gems, node_modules: frameworks and libraries the user
// calls but does not change), launcher scripts in a bin directory, and
// node's internals are not user code; the application's files are. ok is
// false for files of other languages.
func scriptFile(file string) (user, ok bool) {
	switch {
	case !stacks.Interpreted(file):
		return false, false
	case !stacks.ScriptSource(file):
		// <frozen importlib._bootstrap>, <built-in>, <string> (python -c),
		// Ruby's <internal:kernel>, node's own modules
		return false, true
	case strings.Contains(file, "/site-packages/"), strings.Contains(file, "/dist-packages/"),
		strings.Contains(file, "/node_modules/"), strings.Contains(file, "/gems/"):
		return false, true
	case strings.Contains(file, "/lib/python"), strings.Contains(file, "/lib64/python"),
		strings.Contains(file, "/lib/ruby/"), strings.Contains(file, "/lib/pypy"):
		return false, true
	}
	return true, true
}

// isLauncherScript says whether a frame is the top level ("<module>",
// "<main>", "<top (required)>") of a console script in a bin directory
// (gunicorn, puma, rackup: the entry point pip or gem wrote), as py-spy and
// rbspy show it.
func isLauncherScript(name, file string) bool {
	dir := path.Dir(file)
	return strings.HasPrefix(name, "<") && path.IsAbs(file) && path.Ext(file) == "" &&
		(strings.HasSuffix(dir, "/bin") || strings.HasSuffix(dir, "/sbin"))
}

// runtimeBinary matches the executables and libraries of language
// runtimes that perf names as a frame's binary: the interpreters' and
// V8's C and C++ frames (_PyEval_EvalFrameDefault in python3.11,
// v8::internal::... in node) are the runtime's, never the user's.
var runtimeBinary = regexp.MustCompile(`^(python[0-9.]*m?|pypy[0-9.]*|ruby[0-9.]*|node|nodejs|java|lib(jvm|node|v8)[^/]*\.so.*)$`)

func isRuntimeBinary(file string) bool {
	return file != "" && runtimeBinary.MatchString(path.Base(file))
}

// vmFramePrefixes start the names of frames a VM's JIT or runtime emits
// without a file: V8's builtins, stubs and bytecode handlers (node's perf
// map), the JVM's interpreter and stubs and JDK classes (a JVM perf map).
var vmFramePrefixes = []string{
	"Builtin:", "BytecodeHandler:", "Stub:", "Handler:", "RegExp:", "Eval:", "Builtins_", "v8::", "node::",
	"Interpreter", "StubRoutines", "java.", "javax.", "jdk.", "sun.", "com.sun.", "Ljava/", "Ljdk/", "Lsun/",
}

func isVMFrame(name string) bool {
	for _, p := range vmFramePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
