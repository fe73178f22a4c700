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
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText spells the kind as String does.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) >= len(kindNames) {
		return nil, fmt.Errorf("ownership: no kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a kind spelled as String spells it.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("ownership: unknown kind %q", b)
}

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
func (w Work) String() string {
	if int(w) < len(workNames) {
		return workNames[w]
	}
	return fmt.Sprintf("Work(%d)", uint8(w))
}

// MarshalText spells the work as String does.
func (w Work) MarshalText() ([]byte, error) {
	if int(w) >= len(workNames) {
		return nil, fmt.Errorf("ownership: no work %d", uint8(w))
	}
	return []byte(workNames[w]), nil
}

// UnmarshalText reads a work spelled as String spells it.
func (w *Work) UnmarshalText(b []byte) error {
	for i, n := range workNames {
		if n == string(b) {
			*w = Work(i)
			return nil
		}
	}
	return fmt.Errorf("ownership: unknown runtime work %q", b)
}

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
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// MarshalText spells the role as String does.
func (r Role) MarshalText() ([]byte, error) {
	if int(r) >= len(roleNames) {
		return nil, fmt.Errorf("ownership: no role %d", uint8(r))
	}
	return []byte(roleNames[r]), nil
}

// UnmarshalText reads a role spelled as String spells it.
func (r *Role) UnmarshalText(b []byte) error {
	for i, n := range roleNames {
		if n == string(b) {
			*r = Role(i)
			return nil
		}
	}
	return fmt.Errorf("ownership: unknown role %q", b)
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
	LangRust   = "rust"
	LangNative = string(runfmt.RuntimeNative) // C, C++, the kernel, anything else compiled
)
