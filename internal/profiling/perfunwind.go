package profiling

import (
	"fmt"
	"strconv"

	own "perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/units"
)

// dwarfStackBytes is the stack perf copies per sample when it unwinds
// with DWARF: 16 KiB reaches a request's handler through an async
// runtime's and a web framework's frames (a Rust axum service's handler
// sits 5–6 KiB above the regex compiler it calls, its thread's start
// 12–20 KiB), at a quarter of the copying of perf's 64 KiB maximum.
const dwarfStackBytes = 16 << 10

// unwinding is how perf walks a recording's stacks, and why.
type unwinding struct {
	how        runfmt.Unwind
	stackBytes int    // with runfmt.UnwindDWARF
	why        string // what was read of the executable
	lang       string // the executable's language (ownership.Lang*)
}

// perfUnwinding decides how perf walks the stacks of procs: with DWARF
// when the executable of a native process (Rust, C, C++) appears to be
// built without frame pointers (ownership's heuristic: few of its
// functions set one up) and has unwind tables (.eh_frame, which cargo's
// and gcc's default builds keep, stripped or not); with frame pointers
// otherwise (Go keeps them; a JIT's code has no unwind tables perf reads).
func perfUnwinding(procs []service.ProcessInfo) unwinding {
	for _, p := range procs {
		if p.Runtime != runfmt.RuntimeNative {
			continue
		}
		b, _, err := own.InspectBinary("/proc/" + strconv.Itoa(p.PID) + "/exe")
		if err != nil || b.Lang == own.LangGo || !b.UnwindTables {
			continue
		}
		if b.FramePointers == own.FramePointersNo || b.FramePointers == own.FramePointersPartial {
			name := p.Exe
			if name == "" {
				name = "pid " + strconv.Itoa(p.PID) + "'s executable"
			}
			return unwinding{how: runfmt.UnwindDWARF, stackBytes: dwarfStackBytes, lang: b.Lang, why: fmt.Sprintf(
				"%s appears to be built without frame pointers (%s of its functions set one up; a heuristic)", name, units.FormatPct(100*b.FramePointerShare))}
		}
	}
	return unwinding{how: runfmt.UnwindFramePointers}
}

// note says, for the run's notes, that perf unwinds with DWARF and what
// it costs; "" for frame pointers.
func (u unwinding) note() string {
	if u.how != runfmt.UnwindDWARF {
		return ""
	}
	return fmt.Sprintf("perf unwinds the stacks with DWARF (perf record --call-graph dwarf,%d): %s, so a walk of frame "+
		"pointers would stop before your code; copying %d KiB of stack per sample costs the service more than frame pointers do, "+
		"and perf script unwinds the samples after the window (perf's CPU: profiling.profilers in run.json); for cheaper stacks rebuild with %s",
		u.stackBytes, u.why, u.stackBytes>>10, frameRebuild(u.lang))
}

// frameRebuild is the rebuild that gives a native binary of language
// lang (ownership.LangRust, else C or C++) frame pointers.
func frameRebuild(lang string) string {
	if lang == own.LangRust {
		return `RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release`
	}
	return "-fno-omit-frame-pointer in CFLAGS and CXXFLAGS"
}
