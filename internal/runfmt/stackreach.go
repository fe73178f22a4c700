package runfmt

// StackReach says whether a CPU profile's stacks reach the user's code
// and, when they do not, what was seen and what makes them: run.json's
// profiling.stack_reach, and the same fields in a perf profile's
// profiles[].stacks. The words are made where it is shown.
type StackReach struct {
	// Reach says the stacks reach the user's code.
	Reach bool `json:"reach"`
	// Why is what was seen when they do not, with its figures: Share is
	// the share of the samples judged that were shallow (ReachShallow)
	// or had no frame of the user's code (the others), UnnamedShare those
	// whose leaf no one could name, MedianFrames the median frames of a
	// sample and ShallowFrames the most a shallow one has.
	Why           ReachWhy `json:"why,omitempty"`
	Share         float64  `json:"share,omitempty"`
	UnnamedShare  float64  `json:"unnamed_share,omitempty"`
	MedianFrames  int      `json:"median_frames"`
	ShallowFrames int      `json:"shallow_frames,omitempty"`
	// Lang is the service's language as perflab's ownership model names
	// it (go, python, ruby, node, jvm, rust, native): the remedy is its.
	Lang string `json:"lang,omitempty"`
	// Binary is an executable read that lacks what a walk of its stacks
	// needs: a symbol table (NoSymbols) or frame pointers, of which
	// FramePointerShare of its functions set one up (a heuristic).
	Binary            string  `json:"binary,omitempty"`
	NoSymbols         bool    `json:"no_symbols,omitempty"`
	FramePointerShare float64 `json:"frame_pointer_share,omitempty"`
	// Fix is what makes the stacks reach the user's code; SymbolsLang,
	// when set, is the language of a native binary without symbols,
	// which needs them first.
	Fix         ReachFix `json:"fix,omitempty"`
	SymbolsLang string   `json:"symbols_lang,omitempty"`
}

// ReachWhy is why a profile's stacks do not reach the user's code.
type ReachWhy string

// The reasons.
const (
	// ReachShallow: most samples have at most ShallowFrames frames: the
	// walk of the stacks stopped early (no frame pointers).
	ReachShallow ReachWhy = "shallow"
	// ReachRuntimeOnly: most samples have no frame of the user's code,
	// and the profiler saw the language's runtime, not the code it runs
	// (an interpreter or a JIT without names).
	ReachRuntimeOnly ReachWhy = "runtime-only"
	// ReachUnnamed: most samples have no frame of the user's code and
	// many end in code no one could name (UnnamedShare).
	ReachUnnamed ReachWhy = "unnamed"
	// ReachNotUserCode: most samples have no frame of what perflab takes
	// for the user's code.
	ReachNotUserCode ReachWhy = "not-user-code"
)

// ReachWhys lists the reasons.
var ReachWhys = newVocabulary("stack reach", ReachShallow, ReachRuntimeOnly, ReachUnnamed, ReachNotUserCode)

// UnmarshalText reads a reason's name, refusing one it does not know.
func (w *ReachWhy) UnmarshalText(b []byte) error { return ReachWhys.unmarshal(w, b) }

// ReachFix is what makes a profile's stacks reach the user's code, for
// its language (StackReach.Lang).
type ReachFix string

// The fixes.
const (
	// FixUnwind: make the stacks walkable (frame pointers, DWARF
	// unwinding, a profiler that reads whole stacks).
	FixUnwind ReachFix = "unwind"
	// FixNaming: let the profiler name the code (symbols, a perf map, a
	// language's own profiler).
	FixNaming ReachFix = "naming"
	// FixUserCode: say which code is the user's (--user-code, --src).
	FixUserCode ReachFix = "user-code"
)

// ReachFixes lists the fixes.
var ReachFixes = newVocabulary("stack fix", FixUnwind, FixNaming, FixUserCode)

// UnmarshalText reads a fix's name, refusing one it does not know.
func (f *ReachFix) UnmarshalText(b []byte) error { return ReachFixes.unmarshal(f, b) }
