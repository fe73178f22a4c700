package runfmt

import "time"

// SchemaVersion is the version of run.json this build writes. Version 2
// added the "degraded" status (older readers know only complete and
// partial) and the quality block; version 3 writes the source of a profile
// several profilers sampled as a list (see ProfileSource); version 4
// writes findings as data (figures, settings, evidence and an advice key,
// see Finding) instead of finished sentences; version 5 writes the rest
// of the run as data too (the quality's causes, the degradations, why a
// run stopped, the stacks' reach, why a service was found stuck, the CPU
// verdict) and its remaining words only under keys that end in note,
// notes or text (oldkeys.go reads the keys of earlier runs).
const SchemaVersion = 5

// Run statuses.
const (
	// StatusComplete: everything the run set out to measure was measured.
	StatusComplete = "complete"
	// StatusPartial: the run stopped early (the service failed or exited,
	// a fault, Ctrl-C); PartialKind and PartialReason say why, and what
	// completed is kept.
	StatusPartial = "partial"
	// StatusDegraded: the run completed, but a profile it needed failed or
	// could not be trusted (the CPU profile refused, timed out or of the
	// wrong type; a pprof endpoint that is not the service's). The load and
	// the service's CPU are measured; Degradations say what is missing.
	StatusDegraded = "degraded"
	// StatusStuck: the service stopped answering in the window (requests
	// stopped finishing: a deadlock, a hang); Stuck says where its threads
	// waited and why perflab looked, and what was measured before is
	// kept.
	StatusStuck = "stuck"
)

// Run is the content of run.json.
type Run struct {
	SchemaVersion int       `json:"schema_version"`
	Name          string    `json:"name"`
	ID            string    `json:"id"`
	Started       time.Time `json:"started"`
	Status        string    `json:"status"`
	// PartialKind says why a partial or stuck run stopped, where perflab
	// knows it; PartialReason quotes the error. Its key stays
	// partial_reason, which scripts read (a quoted error, not perflab's
	// words; the archtest lists it).
	PartialKind   PartialKind `json:"partial_kind,omitempty"`
	PartialReason string      `json:"partial_reason,omitempty"`
	// Degradations say which profile failed or was refused, for a
	// degraded run (and for a partial one that also lost a profile).
	Degradations []Degradation `json:"degradations,omitempty"`
	// Warnings are problems that did not stop the run (a missing profile, no
	// cgroup permission) in the words shown to the user, quoting errors
	// (the key warnings in runs before schema 5).
	Warnings []string `json:"warning_notes,omitempty"`

	Config   Config         `json:"config"`
	Env      Environment    `json:"environment"`
	Load     *LoadResult    `json:"load,omitempty"`
	Target   *TargetSummary `json:"target,omitempty"`
	Profiles []ProfileRef   `json:"profiles,omitempty"`
	Hot      []HotFunc      `json:"hot,omitempty"`
	Allocs   []AllocFunc    `json:"allocs,omitempty"`
	// AllocBytesPerRequest and AllocObjectsPerRequest are the allocation
	// profile's totals for the window divided by the requests, perflab's
	// measuring left out (Profiling.Measuring).
	AllocBytesPerRequest   float64    `json:"alloc_bytes_per_request,omitempty"`
	AllocObjectsPerRequest float64    `json:"alloc_objects_per_request,omitempty"`
	GC                     *GCSummary `json:"gc,omitempty"`
	// Findings are ranked by what fixing each would recover under the
	// answer's binding constraint (Answer), the first to change first.
	Findings []Finding `json:"findings,omitempty"`
	// Answer is what limits the service (answer.go).
	Answer  *Answer  `json:"answer,omitempty"`
	FindMax *FindMax `json:"find_max,omitempty"`
	// Endpoints is the CPU per request handler and load target (Go
	// net/http services, Python web frameworks).
	Endpoints *Endpoints `json:"endpoints,omitempty"`
	// Quality is the machine during the measured window (see Quality).
	Quality *Quality `json:"quality,omitempty"`
	// Revision is the git revision measured, for runs of perflab ab --git.
	Revision *Revision `json:"revision,omitempty"`
	// Profiling says how the CPU profile was taken and whether it can
	// explain the CPU measured (see profiling.go).
	Profiling *Profiling `json:"profiling,omitempty"`

	// Time is where a request's wall time goes (timing.go); GoRuntime the
	// Go runtime's settings as used; Heap how the live heap changed.
	Time      *TimePerRequest `json:"time_per_request,omitempty"`
	GoRuntime *GoRuntime      `json:"go_runtime,omitempty"`
	Heap      *HeapGrowth     `json:"heap_growth,omitempty"`
	// Stuck is where the service's threads waited when its requests
	// stopped finishing (stuck.go).
	Stuck *Stuck `json:"stuck,omitempty"`
	// Ledger is where a request's time and CPU go, every millisecond
	// owned once (ledger.go).
	Ledger *Ledger `json:"ledger,omitempty"`

	// Bench is a `perflab bench` run's benchmarks (bench.go).
	Bench *Bench `json:"bench,omitempty"`
	// Batch is a batch program's run: `perflab run -- CMD` without a URL
	// (batch.go).
	Batch *Batch `json:"batch,omitempty"`
}

// Config records how the run was asked for, so two runs can be checked for
// comparability.
type Config struct {
	URL         string            `json:"url"`
	Command     []string          `json:"command,omitempty"`
	PID         int               `json:"pid,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	CPUs        float64           `json:"cpus,omitempty"`
	MemoryBytes int64             `json:"memory_bytes,omitempty"`
	// ServiceCPUs and LoadCPUs are --service-cpus and --load-cpus ("0-1").
	ServiceCPUs string  `json:"service_cpus,omitempty"`
	LoadCPUs    string  `json:"load_cpus,omitempty"`
	WarmupS     float64 `json:"warmup_s"`
	// Load is the load's settings in flag form (c, rate, stages, duration...).
	Load map[string]string `json:"load"`
}

// Environment describes where the run happened.
type Environment struct {
	PerflabVersion string `json:"perflab_version"`
	GoVersion      string `json:"go_version"`
	Hostname       string `json:"hostname"`
	Kernel         string `json:"kernel"`
	HostCores      int    `json:"host_cores"`
	CgroupVersion  string `json:"cgroup_version"`
	GitCommit      string `json:"git_commit,omitempty"`
	GitDirty       bool   `json:"git_dirty,omitempty"`
}

// TargetSummary is what the target service consumed during the measured window.
type TargetSummary struct {
	PIDs            []int   `json:"pids,omitempty"`
	CPUCoresMean    float64 `json:"cpu_cores_mean"`
	CPUCoresP95     float64 `json:"cpu_cores_p95"`
	CPUCoresMax     float64 `json:"cpu_cores_max"`
	CPUSeconds      float64 `json:"cpu_seconds"`
	CPUMsPerRequest float64 `json:"cpu_ms_per_request"`
	// CPUPerRequestNote says why CPUMsPerRequest is not given (0): other
	// clients reached the service in the window (OtherClients connections
	// that were not perflab's), so its CPU is not the load's alone.
	CPUPerRequestNote string  `json:"cpu_per_request_note,omitempty"`
	OtherClients      int     `json:"other_clients,omitempty"`
	RSSMaxBytes       int64   `json:"rss_max_bytes"`
	MemoryMaxBytes    int64   `json:"memory_max_bytes,omitempty"`
	ThrottledPct      float64 `json:"throttled_pct"`
	ThrottledSeconds  float64 `json:"throttled_s"`
	ThreadsMax        int64   `json:"threads_max,omitempty"`
	// RunqueueWaitSeconds is how long the service's threads were runnable
	// but waited for a CPU in the window: CPU contention (other processes,
	// the quota, or more busy threads than cores), not I/O or locks.
	RunqueueWaitSeconds float64 `json:"runqueue_wait_s"`
	CPULimitCores       float64 `json:"cpu_limit_cores,omitempty"`
	MemoryLimitBytes    int64   `json:"memory_limit_bytes,omitempty"`
	// Source is where CPU was read: "cgroup-v1", "cgroup-v2" or "proc".
	Source string `json:"source"`
	// CPUBound says the target ran at its CPU budget (near quota,
	// throttled), or with no budget at the host's HostCores.
	CPUBound  bool `json:"cpu_bound"`
	HostCores int  `json:"host_cores,omitempty"`
	// Samples counts the CPU samples in the window; CPUUnjudged says there
	// were too few to judge its CPU use (then CPUBound means nothing).
	Samples     int  `json:"samples,omitempty"`
	CPUUnjudged bool `json:"cpu_unjudged,omitempty"`
	// Verdict is the CPU verdict in the words of a run before schema 5
	// (its key verdict); a newer run's is made from the figures.
	Verdict  string `json:"verdict_note,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// StoppedByPerflab says perflab ended the service (SIGTERM, then
	// SIGKILL after the grace): ExitCode is then its answer to that
	// signal (143, 130, 137), not a crash.
	StoppedByPerflab bool `json:"stopped_by_perflab,omitempty"`
	// OOMKilled says the kernel's OOM killer killed the service at its
	// memory budget (MemoryLimitBytes).
	OOMKilled bool `json:"oom_killed,omitempty"`
}

// ProfileRef names one saved profile of the run.
type ProfileRef struct {
	// Type is what it holds (see ProfileType); Source what recorded it.
	Type    ProfileType   `json:"type"`
	Source  ProfileSource `json:"source"`
	File    string        `json:"file"`
	StartS  float64       `json:"start_s"`
	Seconds float64       `json:"seconds"`
	// Samples are the samples it holds (a CPU profile's ticks, not its
	// distinct stacks); a profile that counts none, its records.
	Samples int64 `json:"samples,omitempty"`
	// Stacks says whether a CPU profile perf recorded reaches the user's
	// code; nil for other profiles.
	Stacks *Stacks `json:"stacks,omitempty"`
}

// HotFunc is one row of the CPU top table, normalised per request.
type HotFunc struct {
	Function        string  `json:"function"`
	File            string  `json:"file,omitempty"`
	FlatPct         float64 `json:"flat_pct"`
	CumPct          float64 `json:"cum_pct"`
	CPUUsPerRequest float64 `json:"cpu_us_per_request"`
	CumUsPerRequest float64 `json:"cum_us_per_request"`
	UserCode        bool    `json:"user_code"`
	// AttributedUsReq is the standard-library and runtime CPU per request
	// charged to a user function because it called that code; its own CPU
	// is CPUUsPerRequest, so the two add up to what the function costs.
	AttributedUsReq float64 `json:"attributed_us_per_request,omitempty"`
	// AttributedSample names the callee that brought the most of it.
	AttributedSample string `json:"attributed_from,omitempty"`
	// Library is the dependency ("google.golang.org/protobuf v1.36.1")
	// under a user function that holds most of what was charged to it,
	// and LibraryUsPerRequest its CPU per request: "library X under your
	// Y".
	Library             string  `json:"library,omitempty"`
	LibraryUsPerRequest float64 `json:"library_us_per_request,omitempty"`
	// LibraryFunc is the library function under it that holds most of
	// its cost, past the entry frames that only pass the call on (a
	// descriptor's __get__, a wrapper, a dispatcher), with its costliest
	// line: "library X under your Y, in Z at file:line".
	LibraryFunc *LibraryFunc `json:"library_function,omitempty"`
	// DatabaseUsPerRequest is the CPU per request in database client code
	// under a user function.
	DatabaseUsPerRequest float64 `json:"database_us_per_request,omitempty"`
	// Lines are its costliest source lines.
	Lines []SourceLine `json:"lines,omitempty"`
}

// LibraryFunc is a library function a user function's cost goes to.
type LibraryFunc struct {
	Function string `json:"function"`
	// File and Line say where it is and the line its cost goes through,
	// as the profile records them (Line 0 when the profile has none).
	File string `json:"file,omitempty"`
	Line int64  `json:"line,omitempty"`
	// UsPerRequest is its CPU per request under the user function.
	UsPerRequest float64 `json:"us_per_request"`
}

// AllocFunc is one allocating function, normalised per request.
type AllocFunc struct {
	Function          string  `json:"function"`
	UserCode          bool    `json:"user_code"`
	BytesPerRequest   float64 `json:"bytes_per_request"`
	ObjectsPerRequest float64 `json:"objects_per_request"`
	CumBytesPerReq    float64 `json:"cum_bytes_per_request,omitempty"`
}

// GCSummary is the garbage collector's share of the window: counts, pauses
// and heap sizes from gctrace; the CPU share from the CPU profile when there
// is one (CPUPctSource says which).
type GCSummary struct {
	Count        int     `json:"count"`
	CPUPct       float64 `json:"cpu_pct"`
	CPUPctSource string  `json:"cpu_pct_source,omitempty"`
	// GCTraceCPUPct is gctrace's own estimate, which counts GC workers' wall
	// time and so overstates a throttled service's GC.
	GCTraceCPUPct float64 `json:"gctrace_cpu_pct,omitempty"`
	// CPUPctNote replaces CPUPct when no share could be measured (then 0).
	CPUPctNote string  `json:"cpu_pct_note,omitempty"`
	PauseP50Ms float64 `json:"pause_p50_ms"`
	PauseP99Ms float64 `json:"pause_p99_ms"`
	PauseMaxMs float64 `json:"pause_max_ms"`
	// HeapMaxMiB is the largest heap gctrace reported and AllocMiBPerS
	// the allocation rate, in MiB (gctrace's "MB"; see mib.go for the
	// keys of earlier files).
	HeapMaxMiB   float64 `json:"heap_max_mib"`
	GOGC         string  `json:"gogc,omitempty"`
	AllocMiBPerS float64 `json:"alloc_mib_per_s,omitempty"`
	// Events are the window's collections (at most MaxGCEvents).
	Events []GCEvent `json:"events,omitempty"`
}
