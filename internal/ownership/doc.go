// Package ownership decides whose code each frame of a profile is: the
// user's (the main module, the project's own files), a dependency's (a Go
// module, a crate, a jar or JVM package, an npm or PyPI package, a gem, a
// shared library; with its version where known), the standard library's,
// or the runtime's (Go's runtime, an interpreter or VM, libc, the kernel).
// One Model is decided per run (Detect, from the service's processes and
// the project root; New, from explicit inputs) and kept in run.json (it
// marshals as its Spec), so that every view classifies the same way.
//
// On top of the classes:
//   - Charge: the frame of user code nearest the leaf owns a sample, and
//     the library under it is named ("google.golang.org/protobuf under
//     main.logResponse"), with database client work flagged;
//   - Work: the runtime's own work (JIT compiler, GC, interpreter, other);
//   - Depth: the depth of a profile's stacks and a verdict on whether they
//     reach the user's code, with the remedy per runtime; InspectBinary
//     tells whether an executable has symbols, debug information and
//     (heuristically) frame pointers;
//   - Stable and Pair: names that stay the same across runs (JVM lambdas,
//     Go closures, node's anonymous functions, GCC's clones).
//
// The rules for each language are documented where they are applied
// (golang.go, rust.go, python.go, ruby.go, node.go, jvm.go, native.go);
// Classify states their order. --user-code, when given, decides alone
// which frames are the user's; the project root (--src) decides when the
// language's rules are in doubt; a function name with control bytes is
// never the user's.
//
// The package reads profiles with github.com/google/pprof/profile,
// executables with debug/elf, debug/buildinfo and debug/dwarf, and names
// with github.com/ianlancetaylor/demangle (pprof's demangler); every read
// of a file is bounded.
package ownership
