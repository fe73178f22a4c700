package runfmt

// Runtime is the language runtime a process runs, as perflab tells it from
// the process (its executable and mapped libraries): run.json's
// profiling.processes[].runtime. It decides the profiler and the terms
// advice is given in.
type Runtime string

// The runtimes.
const (
	RuntimeGo     Runtime = "go"
	RuntimePython Runtime = "python"
	RuntimeRuby   Runtime = "ruby"
	RuntimeNode   Runtime = "node"
	RuntimeJVM    Runtime = "jvm"
	// RuntimeNative is anything else: C, C++, Rust, a shell.
	RuntimeNative Runtime = "native"
)

// LangRust is the language word of native code told apart as Rust's, in
// the lang fields of a profile's stack reach and runtime work, where the
// other words are the runtimes'.
const LangRust = "rust"

// Runtimes lists the runtimes.
var Runtimes = newVocabulary("runtime", RuntimeGo, RuntimePython, RuntimeRuby, RuntimeNode, RuntimeJVM, RuntimeNative)

// UnmarshalText reads a runtime's name, refusing one it does not know.
func (r *Runtime) UnmarshalText(b []byte) error { return Runtimes.unmarshal(r, b) }
