package runfmt

// ProfilerUse is what the profilers of one kind that perflab started used
// of the CPU during the measured window: the cost of looking, against the
// service's own CPU (Profiling.MeasuredCPUSeconds).
type ProfilerUse struct {
	// Tool is the profiler (py-spy, rbspy or perf); Role what it recorded.
	Tool Profiler     `json:"tool"`
	Role ProfilerRole `json:"role"`
	// Hz is the sampling rate; 0 for a recorder of events.
	Hz int `json:"hz,omitempty"`
	// Processes counts the recorder processes (one per sampled process
	// for py-spy, one per process tree for rbspy).
	Processes int `json:"processes"`
	// CPUSeconds is their CPU time (user + system) inside the window.
	CPUSeconds float64 `json:"cpu_s"`
}
