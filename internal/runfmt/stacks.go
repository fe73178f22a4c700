package runfmt

// Unwind is how a profiler walked the stacks of native code.
type Unwind string

// How perf walks a native process's stacks.
const (
	// UnwindFramePointers follows the chain of saved frame pointers
	// (perf record -g): cheap, and complete only for code built with
	// frame pointers.
	UnwindFramePointers Unwind = "frame-pointers"
	// UnwindDWARF copies the top of each sampled thread's stack and
	// unwinds it with the binaries' unwind tables (perf record
	// --call-graph dwarf): whole stacks without frame pointers, at more
	// cost per sample.
	UnwindDWARF Unwind = "dwarf"
)

// Stacks says whether a CPU profile's stacks reach the user's code: how
// perf walked them and, when they do not, why, the rebuild or flag that
// makes them, and where the CPU went per module (the binaries, perf's
// dso) since functions cannot say. A view that ranks the user's functions
// skips a profile whose Reach is false.
type Stacks struct {
	// StackReach says whether they reach the user's code and, when they
	// do not, why and what makes them; its MedianFrames is the median
	// number of frames of a sample outside the kernel.
	StackReach
	// Reason and Remedy are the same in the words of a run before schema
	// 5 (its keys reason and remedy).
	Reason string `json:"reason_note,omitempty"`
	Remedy string `json:"remedy_note,omitempty"`
	// Unwind is how perf walked them; DWARFStackBytes the stack it
	// copied per sample with UnwindDWARF; UnwindWhy why it was chosen.
	Unwind          Unwind `json:"unwind,omitempty"`
	DWARFStackBytes int    `json:"dwarf_stack_bytes,omitempty"`
	UnwindWhy       string `json:"unwind_why_note,omitempty"`
	// ShallowShare is the share of samples with two or fewer frames.
	ShallowShare float64 `json:"shallow_share"`
	// Modules is the CPU per binary, costliest first, when the stacks do
	// not reach the user's code.
	Modules []ModuleCPU `json:"modules,omitempty"`
}

// ModuleCPU is the CPU the samples whose leaf is in one binary stand for.
type ModuleCPU struct {
	Module     string  `json:"module"`
	CPUSeconds float64 `json:"cpu_s"`
	Share      float64 `json:"share"`
}
