package ownership

import (
	"fmt"

	"perflab/internal/runfmt"
)

// Kind says whose code a frame is.
type Kind uint8

// The kinds of code. The zero Kind is Unknown.
const (
	// Unknown is a frame no one can point at: an address perf could not
	// name, a JIT frame without a perf map, a name with control bytes.
	Unknown Kind = iota
	// User is the user's code: the main module, the project's own files,
	// or what --user-code matches.
	User
	// Dependency is third-party code the user calls: another Go module, a
	// crate, a jar or JVM package outside the project, an npm package, a
	// PyPI package, a gem, a shared library.
	Dependency
	// Std is a language's standard library: Go's std, Rust's std, core and
	// alloc, CPython's Lib, Ruby's stdlib and core, node's built-in
	// modules, the JDK's classes.
	Std
	// Runtime is the runtime or VM and the system under it: Go's runtime
	// and its assembly, the CPython, Ruby and V8 interpreters, the JVM and
	// its stubs, libc, the dynamic loader, the kernel.
	Runtime
)

var kindNames = [...]string{Unknown: "unknown", User: "user", Dependency: "dependency", Std: "std", Runtime: "runtime"}

// String returns the kind's name as run.json spells it.
func (k Kind) String() string { return enumString(k, kindNames[:], "Kind") }

// MarshalText spells the kind as String does.
func (k Kind) MarshalText() ([]byte, error) { return enumText(k, kindNames[:], "kind") }

// UnmarshalText reads a kind spelled as String spells it.
func (k *Kind) UnmarshalText(b []byte) error { return enumRead(k, b, kindNames[:], "kind") }

// Work names the runtime's own work a sample is part of.
type Work uint8

// The kinds of runtime work. The zero Work is NoWork.
const (
	// NoWork is a sample whose leaf is code of a program, not of its
	// runtime.
	NoWork Work = iota
	// JIT is a just-in-time compiler at work: the JVM's C1 and C2
	// compiler threads, V8's optimising compilers and bytecode generator.
	JIT
	// GC is the garbage collector: Go's background mark workers, assists
	// and sweepers, the JVM's GC threads, V8's scavenger and marker,
	// CPython's and Ruby's collectors.
	GC
	// Interpreter is an interpreter running code the profile cannot name:
	// CPython's eval loop without Python frames, the JVM's template
	// interpreter, V8's Ignition handlers.
	Interpreter
	// OtherRuntime is any other runtime, VM, libc or kernel work at the
	// leaf: allocation, scheduling, stubs, system calls.
	OtherRuntime
)

var workNames = [...]string{NoWork: "", JIT: runfmt.WorkJIT, GC: runfmt.WorkGC, Interpreter: runfmt.WorkInterpreter, OtherRuntime: runfmt.WorkRuntime}

// String returns the work's name as run.json spells it ("" for NoWork).
func (w Work) String() string { return enumString(w, workNames[:], "Work") }

// MarshalText spells the work as String does.
func (w Work) MarshalText() ([]byte, error) { return enumText(w, workNames[:], "work") }

// UnmarshalText reads a work spelled as String spells it.
func (w *Work) UnmarshalText(b []byte) error { return enumRead(w, b, workNames[:], "runtime work") }

// Role is what a frame's code does for its caller, where that is worth
// saying.
type Role uint8

// The roles. The zero Role is NoRole.
const (
	NoRole Role = iota
	// Database is a database client at work: Go's database/sql and its
	// drivers, Python's DB-API drivers, SQLAlchemy and Django's ORM, JDBC
	// and JPA, ActiveRecord, node's database clients, libsqlite3 and libpq.
	Database
)

var roleNames = [...]string{NoRole: "", Database: "database"}

// String returns the role's name as run.json spells it ("" for NoRole).
func (r Role) String() string { return enumString(r, roleNames[:], "Role") }

// MarshalText spells the role as String does.
func (r Role) MarshalText() ([]byte, error) { return enumText(r, roleNames[:], "role") }

// UnmarshalText reads a role spelled as String spells it.
func (r *Role) UnmarshalText(b []byte) error { return enumRead(r, b, roleNames[:], "role") }

// enumString is v's word in words, or typ(N) for a value out of range.
func enumString[T ~uint8](v T, words []string, typ string) string {
	if int(v) < len(words) {
		return words[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// enumText is v's word in words for run.json; a value out of range is an
// error naming noun.
func enumText[T ~uint8](v T, words []string, noun string) ([]byte, error) {
	if int(v) >= len(words) {
		return nil, fmt.Errorf("ownership: no %s %d", noun, uint8(v))
	}
	return []byte(words[v]), nil
}

// enumRead sets *v to the value whose word in words is b, or says that
// noun b is unknown.
func enumRead[T ~uint8](v *T, b []byte, words []string, noun string) error {
	for i, w := range words {
		if w == string(b) {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("ownership: unknown %s %q", noun, b)
}

// Languages and runtimes a frame can belong to, as Class.Lang and
// Module.Lang spell them. The runtime names are those of target's
// DetectRuntime ("go", "python", "ruby", "node", "jvm", "native"); Rust
// is told apart from other native code.
const (
	LangGo     = string(runfmt.RuntimeGo)
	LangPython = string(runfmt.RuntimePython)
	LangRuby   = string(runfmt.RuntimeRuby)
	LangNode   = string(runfmt.RuntimeNode)
	LangJVM    = string(runfmt.RuntimeJVM)
	LangRust   = runfmt.LangRust
	LangNative = string(runfmt.RuntimeNative) // C, C++, the kernel, anything else compiled
)
