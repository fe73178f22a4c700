package runfmt

import "slices"

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

var runtimeWords = []Runtime{RuntimeGo, RuntimePython, RuntimeRuby, RuntimeNode, RuntimeJVM, RuntimeNative}

// Runtimes lists the runtimes.
func Runtimes() []Runtime { return slices.Clone(runtimeWords) }

// ParseRuntime returns the runtime named s, or an error naming s and the
// runtimes.
func ParseRuntime(s string) (Runtime, error) { return parseWord("runtime", Runtimes(), s) }

// String is the runtime's name.
func (r Runtime) String() string { return string(r) }

// UnmarshalText reads a runtime's name, refusing one it does not know.
func (r *Runtime) UnmarshalText(b []byte) error { return unmarshalWord(r, b, ParseRuntime) }
