package prose

import "perflab/internal/runfmt"

// The remedies of a profile's stacks: what makes a runtime's stacks
// walkable by perf, and what lets perf name its code. The languages are
// the ownership model's (go, python, ruby, node, jvm, rust, native; ""
// is C or C++): its warnings and the stack reach's words say the same.
const (
	langGo     = string(runfmt.RuntimeGo)
	langPython = string(runfmt.RuntimePython)
	langRuby   = string(runfmt.RuntimeRuby)
	langNode   = string(runfmt.RuntimeNode)
	langJVM    = string(runfmt.RuntimeJVM)
	langRust   = "rust"
)

// UnwindRemedy is what makes a runtime's stacks walkable by perf.
func UnwindRemedy(lang string) string {
	switch lang {
	case langRust:
		return `rebuild with frame pointers: RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release; or record with DWARF unwinding (perf record --call-graph dwarf), which costs more per sample`
	case langJVM:
		return "start the JVM with -XX:+PreserveFramePointer, and let it write a perf map (-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit, or jcmd PID Compiler.perfmap)"
	case langNode:
		return "start node with --perf-basic-prof (and --interpreted-frames-native-stack, so interpreted functions get frames)"
	case langGo:
		return "Go keeps frame pointers: check that the profile is of the service's process, and that perf recorded call graphs (-g)"
	case langPython:
		return "profile with py-spy (perflab uses it when installed), or run Python 3.12+ with -X perf"
	case langRuby:
		return "profile with rbspy (perflab uses it when installed)"
	}
	return "rebuild with frame pointers: -fno-omit-frame-pointer in CFLAGS and CXXFLAGS; or record with DWARF unwinding (perf record --call-graph dwarf), which costs more per sample"
}

// NamingRemedy is what lets perf name a runtime's code.
func NamingRemedy(lang string) string {
	switch lang {
	case langJVM:
		return "let the JVM write a perf map: -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (or jcmd PID Compiler.perfmap while it runs), with -XX:+PreserveFramePointer"
	case langNode:
		return "start node with --perf-basic-prof so perf can name JavaScript functions"
	case langPython:
		return "profile with py-spy (perflab uses it when installed), or run Python 3.12+ with -X perf"
	case langRuby:
		return "profile with rbspy (perflab uses it when installed)"
	case langRust:
		return "keep symbols: do not strip the binary (Cargo.toml's [profile.release] strip = false, cargo's default; debug = 1 adds file and line information)"
	}
	return "keep the symbol table: do not strip the binary (no -s, no strip), or install its debug symbols"
}
