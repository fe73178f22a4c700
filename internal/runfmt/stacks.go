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
	// Reach says the stacks reach the user's code.
	Reach bool `json:"reach"`
	// Reason is one sentence on what was seen when they do not; Remedy
	// the exact flag or rebuild that makes them.
	Reason string `json:"reason,omitempty"`
	Remedy string `json:"remedy,omitempty"`
	// Unwind is how perf walked them; DWARFStackBytes the stack it
	// copied per sample with UnwindDWARF; UnwindWhy why it was chosen.
	Unwind          Unwind `json:"unwind,omitempty"`
	DWARFStackBytes int    `json:"dwarf_stack_bytes,omitempty"`
	UnwindWhy       string `json:"unwind_why,omitempty"`
	// MedianFrames is the median number of frames of a sample outside
	// the kernel; ShallowShare the share of samples with two or fewer.
	MedianFrames int     `json:"median_frames"`
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
