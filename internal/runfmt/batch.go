package runfmt

// Batch is what `perflab run -- CMD` (no URL) measured of a batch program:
// the command ran once under the budget, measured from its start to its
// exit. It is run.json's "batch"; such a run has no load. The run's hot
// functions (run.json's hot) and findings count per run: their "per
// request" figures are the whole run's.
type Batch struct {
	// ExitCode is the program's exit status (128+N when a signal N killed
	// it), ExitStatus the same in words ("exit status 0", "killed by
	// signal 9 (killed)"); both absent when perflab did not see it exit.
	ExitCode   *int   `json:"exit_code,omitempty"`
	ExitStatus string `json:"exit_status,omitempty"`
	// TimeoutS is --timeout; TimedOut says it ended the program (killed),
	// Interrupted that Ctrl-C did.
	TimeoutS    float64 `json:"timeout_s"`
	TimedOut    bool    `json:"timed_out,omitempty"`
	Interrupted bool    `json:"interrupted,omitempty"`

	// WallS is from the command's start to its exit.
	WallS float64 `json:"wall_s"`
	// UserS and SystemS are its CPU time as the kernel counted it at its
	// exit (getrusage of wait4: the program and the children it waited
	// for), CPUS their sum.
	UserS   float64 `json:"user_s"`
	SystemS float64 `json:"system_s"`
	CPUS    float64 `json:"cpu_s"`
	// CoresMean is CPUS over WallS: the cores it used on average.
	CoresMean float64 `json:"cores_mean"`
	// RunnableS is how long its threads waited for a CPU, summed over
	// them (the kernel's run-queue time: other work on the machine, the
	// budget, or more busy threads than cores); RunnableSource says where
	// it was read: "ebpf" (the scheduler's tracepoints) or "schedstat"
	// (/proc/PID/task/TID/schedstat, sampled: a thread that exits between
	// two samples takes its last wait with it).
	RunnableS      float64 `json:"runnable_s"`
	RunnableSource string  `json:"runnable_source,omitempty"`
	// Busy is how many of its threads were on a CPU or waiting for one,
	// on average: (CPUS + RunnableS) / WallS. On a busy machine the
	// runtime's helper threads inflate it (each wake-up waits for a CPU).
	Busy *float64 `json:"busy_threads,omitempty"`
	// Cores are the cores it could use.
	Cores BatchCores `json:"cores"`

	// RSSMaxBytes is its peak resident set size: the high-water mark of
	// its processes' memory (VmHWM, read every 100 ms and summed over
	// them), or the most the sampler saw at once.
	RSSMaxBytes int64 `json:"rss_max_bytes"`
	// ThrottledPct and ThrottledS are the CPU budget's throttling: the
	// share of its periods the quota ran out in, and the time throttled.
	ThrottledPct float64 `json:"throttled_pct"`
	ThrottledS   float64 `json:"throttled_s"`
	// GCPct is the Go garbage collector's share of its CPU profile
	// (absent for other programs, or without a profile).
	GCPct *float64 `json:"gc_pct,omitempty"`
	// ThreadsMax is the most threads it ran at once (sampled).
	ThreadsMax int64 `json:"threads_max,omitempty"`

	// Threads is its threads' time as the kernel's scheduler split it;
	// absent when not measured (ThreadsNote says why).
	Threads     *BatchThreads `json:"threads,omitempty"`
	ThreadsNote string        `json:"threads_note,omitempty"`
	// Cost is what measuring it cost.
	Cost *BatchCost `json:"measurement_cost,omitempty"`
	// LastLines are the program's last lines of output (stdout and
	// stderr; the whole output is in target.log).
	LastLines []string `json:"last_lines,omitempty"`
}

// BatchCores are the cores a batch program could use: the fewest of the
// host's, its CPU affinity's (the cpuset) and, for a Go program,
// GOMAXPROCS; and apart from them its CPU budget (a quota, fractional).
type BatchCores struct {
	Host   int `json:"host"`
	CPUSet int `json:"cpuset"`
	// GOMAXPROCS is the Go runtime's (0 for another program), and
	// GOMAXPROCSSource where it comes from: "env" ($GOMAXPROCS), or
	// "default" (the runtime's rule for the cpuset and the budget; a
	// program may still set its own).
	GOMAXPROCS       int    `json:"gomaxprocs,omitempty"`
	GOMAXPROCSSource string `json:"gomaxprocs_source,omitempty"`
	// Usable is the fewest of the three; UsableBy names which limits it:
	// "host", "cpuset" or "GOMAXPROCS".
	Usable   int    `json:"usable"`
	UsableBy string `json:"usable_by"`
	// BudgetCores is the CPU quota (--cpus; 0: none).
	BudgetCores float64 `json:"budget_cores,omitempty"`
}

// BatchThreads is the program's threads' time, summed over its threads
// (and the processes it forked), by ThreadState. The states add up to the
// threads' time from each thread's first switch-out to its last one (the
// kernel's view); NotSeenCPUS is the CPU time the program used that the
// switch-outs did not see (before a thread's first one): CPUS less the
// on-CPU state, at least 0.
type BatchThreads struct {
	States    []BatchThreadState `json:"states"`
	Processes int                `json:"processes"`
	// PerProcess splits States by process when the program ran several
	// (the processes it forked, by pid, in order of pid).
	PerProcess  []BatchProcessThreads `json:"per_process,omitempty"`
	NotSeenCPUS float64               `json:"not_seen_cpu_s"`
	// Dropped counts what the kernel side could not record (0: nothing).
	Dropped uint64 `json:"dropped,omitempty"`
}

// BatchProcessThreads is one process's threads' time by state.
type BatchProcessThreads struct {
	PID    int                `json:"pid"`
	States []BatchThreadState `json:"states"`
}

// BatchThreadState is one state's time: Seconds summed over threads, and
// the intervals it came in (switch-outs, for on-cpu).
type BatchThreadState struct {
	State   ThreadState `json:"state"`
	Seconds float64     `json:"seconds"`
	Count   uint64      `json:"count"`
}

// BatchCost is the CPU measuring a batch program took, beside the
// program's own: perf's (recording; reading its samples after the exit
// is not counted), the kernel tracing programs' (counted by the kernel,
// on every CPU), and perflab's own process while the program ran (its
// samplers). Pct is their sum in percent of the program's CPU. A part
// not measured says why in its note (ProfilerNote, KernelNote), and its
// figure, 0, is not a cost.
type BatchCost struct {
	ProfilerCPUS float64 `json:"profiler_cpu_s"`
	ProfilerNote string  `json:"profiler_note,omitempty"`
	KernelCPUS   float64 `json:"kernel_cpu_s"`
	KernelNote   string  `json:"kernel_note,omitempty"`
	PerflabCPUS  float64 `json:"perflab_cpu_s"`
	Pct          float64 `json:"pct"`
}
