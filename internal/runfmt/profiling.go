package runfmt

import "encoding/json"

// Profiling says how the service's CPU profile was taken (which processes,
// what each runs, with which profiler), what perflab could not do and how
// to fix it, and whether the profile accounts for the CPU measured.
type Profiling struct {
	// Processes are the service's processes seen during the window.
	Processes []ProcessProfile `json:"processes,omitempty"`
	// Notes are said at the top of the verdict: a missing profiler and how
	// to install it, a fallback to perf, a JIT without a perf map.
	Notes []string `json:"notes,omitempty"`
	// ProfileCPUSeconds is the CPU time the profile's samples stand for;
	// MeasuredCPUSeconds the service's CPU in the same window.
	ProfileCPUSeconds  float64 `json:"profile_cpu_s,omitempty"`
	MeasuredCPUSeconds float64 `json:"measured_cpu_s,omitempty"`
	// UnsampledStartCPUSeconds is the CPU that workers started during the
	// window (processes running an executable the service ran before
	// them: pre-fork workers forked, recycled workers replaced) used
	// before their profiler sampled them, read from /proc as each was
	// first sampled: their start-up, part of MeasuredCPUSeconds and in no
	// sample.
	UnsampledStartCPUSeconds float64 `json:"unsampled_start_cpu_s,omitempty"`
	// UnsampledStartProcesses counts those workers.
	UnsampledStartProcesses int `json:"unsampled_start_processes,omitempty"`
	// Coverage is ProfileCPUSeconds over SampledCPUSeconds.
	Coverage float64 `json:"coverage,omitempty"`
	// ProfilerCPUSeconds is what the profilers perflab started (py-spy,
	// rbspy, perf record, the off-CPU recorders) used themselves inside
	// the window, read from /proc at its edges; ProfilerOverhead that over
	// MeasuredCPUSeconds; Profilers the same by tool and role.
	ProfilerCPUSeconds float64       `json:"profiler_cpu_s,omitempty"`
	ProfilerOverhead   float64       `json:"profiler_overhead,omitempty"`
	Profilers          []ProfilerUse `json:"profilers,omitempty"`
	// KernelCPUSeconds is what perflab's kernel timing programs (eBPF)
	// used of the CPU in the window, as the kernel counts it;
	// KernelOverhead that over MeasuredCPUSeconds.
	KernelCPUSeconds float64 `json:"kernel_cpu_s,omitempty"`
	KernelOverhead   float64 `json:"kernel_overhead,omitempty"`
	// Measuring is what perflab's requests for profiles and traces cost
	// the service itself, counted apart from its work (measuring.go).
	Measuring *Measuring `json:"measuring,omitempty"`
	// Unrepresentative says the profile cannot explain the CPU measured
	// (too few samples, an idle process while the service burned cores);
	// its functions are then not presented as the verdict.
	// NotRepresentative is the same in the words of a run before schema 5
	// (its key not_representative).
	Unrepresentative  *Unrepresentative `json:"unrepresentative,omitempty"`
	NotRepresentative string            `json:"not_representative_note,omitempty"`
	// Src is the project root that decides what is user code when in
	// doubt; UserCode the --user-code pattern, when given.
	Src      string `json:"src,omitempty"`
	UserCode string `json:"user_code,omitempty"`
	// Ownership is the run's ownership model, decided once (from its
	// processes' executables, the project root, --user-code, --src): whose
	// code each frame is, as every view of the run classifies it. It is
	// ownership.Spec's JSON, kept raw so that run.json's format does not
	// depend on the classifier's package.
	Ownership json.RawMessage `json:"ownership,omitempty"`
	// StackReach, set when the CPU profile's stacks do not reach the
	// user's code (one-frame stacks of a binary without frame pointers, a
	// JIT without names), says why and what makes them; no finding is
	// ranked from such a profile. StacksUnreachable and StacksRemedy are
	// the same in the words of a run before schema 5 (its keys
	// stacks_unreachable and stacks_remedy).
	StackReach        *StackReach `json:"stack_reach,omitempty"`
	StacksUnreachable string      `json:"stacks_unreachable_note,omitempty"`
	StacksRemedy      string      `json:"stacks_remedy_note,omitempty"`
	// RuntimeWork is the runtime's own work in the CPU profile (JIT
	// compiler, GC, interpreter, other), each with its share and what to
	// do; absent when the profile shows none.
	RuntimeWork []RuntimeWork `json:"runtime_work,omitempty"`
}

// RuntimeWork is one kind of the runtime's own work in a CPU profile.
type RuntimeWork struct {
	// Work is WorkJIT, WorkGC, WorkInterpreter or WorkRuntime
	// (ownership.Work).
	Work string `json:"work"`
	// Share is its part of the profile's CPU, 0..1.
	Share float64 `json:"share"`
	// NotMeasured says why the profile cannot tell this work apart (then
	// Share is 0 and means nothing): a kind the runtime always reports
	// (the JVM's JIT compiler, collector and interpreter) is kept so.
	NotMeasured string `json:"not_measured_note,omitempty"`
	// Lang, set when the share calls for advice, is the service's
	// language (ownership's: go, python, ruby, node, jvm) whose advice on
	// this work applies. Remedy is that advice in the words of a run
	// before schema 5 (its key remedy).
	Lang   string `json:"lang,omitempty"`
	Remedy string `json:"remedy_note,omitempty"`
}

// The kinds of the runtime's own work (RuntimeWork.Work).
const (
	// WorkJIT is a just-in-time compiler at work (the JVM's C1 and C2
	// compiler threads, V8's optimising compilers).
	WorkJIT = "jit"
	// WorkGC is the garbage collector (the JVM's GC threads and the
	// collections its VM thread runs at a safepoint, Go's mark workers).
	WorkGC = string(TimeGC)
	// WorkInterpreter is an interpreter running code: the JVM's
	// interpreted methods, CPython's eval loop where perf names no
	// Python function.
	WorkInterpreter = "interpreter"
	// WorkRuntime is the runtime's other code at the leaf: allocation,
	// copies, stubs, system calls, whoever called it (the CPU account
	// owns it by its caller: the user's code when a frame of it is on
	// the stack).
	WorkRuntime = "runtime"
)

// ProcessProfile is one process of the service and how it was profiled.
type ProcessProfile struct {
	PID     int     `json:"pid"`
	PPID    int     `json:"ppid,omitempty"`
	Runtime Runtime `json:"runtime"`
	Exe     string  `json:"exe,omitempty"`
	Cmdline string  `json:"cmdline,omitempty"`
	// Profiler is the profiler that sampled it; "" when not sampled.
	Profiler Profiler `json:"profiler,omitempty"`
	// Samples and CPUSeconds are this process's share of the CPU profile.
	Samples    int64   `json:"samples"`
	CPUSeconds float64 `json:"cpu_s"`
}

// Explains says whether the CPU profile can say where the service's CPU
// went: it accounts for the CPU measured and its stacks reach the user's
// code (in a run before schema 5, its words said neither).
func (p *Profiling) Explains() bool {
	return p == nil || p.Unrepresentative == nil && p.NotRepresentative == "" && p.StackReach == nil && p.StacksUnreachable == ""
}
