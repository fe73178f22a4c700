package runfmt

import (
	"maps"
	"slices"
)

// Figure is a quantity a finding holds: the keys of run.json's
// findings[].figures and of its evidence's figures. Each figure has one
// measure, declared with it below, so every writer formats it the same
// way.
type Figure string

// Measure is what a figure's value counts.
type Measure string

// The measures.
const (
	MeasureShare   Measure = "share"   // a fraction, 0 to 1
	MeasureMicros  Measure = "µs"      // a time in microseconds
	MeasureSeconds Measure = "s"       // a time in seconds
	MeasureBytes   Measure = "bytes"   // a size in bytes
	MeasureBytesPS Measure = "bytes/s" // a rate in bytes per second
	MeasureCores   Measure = "cores"   // CPU cores (CPU seconds per second)
	MeasureCount   Measure = "count"   // a count
	MeasureRate    Measure = "1/s"     // a rate, requests per second
)

// The figures of costs, shared by every kind of finding: what a finding
// explains. A finding is ranked by its time per request (CPU or waited).
const (
	// FigShare: the share of the service's CPU (for a finding about CPU)
	// or of a request's traced time (for a wait) the finding explains.
	FigShare Figure = "share"
	// FigCPUPerRequest: the CPU the finding explains, per request.
	FigCPUPerRequest Figure = "cpu_us_per_request"
	// FigExclusiveCPU: the part of FigCPUPerRequest that no finding with
	// more CPU explains too (their stacks overlap: a constructor and a
	// helper it calls), per request; absent when the finding's stacks
	// are not known.
	FigExclusiveCPU Figure = "exclusive_cpu_us"
	// FigWaitPerRequest: the time off a CPU (waiting) it explains, per
	// request.
	FigWaitPerRequest Figure = "wait_us_per_request"
	// FigWaitTotal: the time waited in the window, when requests are
	// not known.
	FigWaitTotal Figure = "wait_total_us"
	// FigBytesPerRequest: the bytes allocated (or retained) per request.
	FigBytesPerRequest Figure = "bytes_per_request"
	// FigObjectsPerRequest: the objects allocated per request.
	FigObjectsPerRequest Figure = "objects_per_request"
	// FigOwnShare: a function's own code's share of the CPU (with the
	// library calls it makes directly).
	FigOwnShare Figure = "own_share"
	// FigLibraryShare: the share of the CPU a user function's dependency
	// (FuncEvidence.Package) takes under it.
	FigLibraryShare Figure = "library_share"
	// FigDatabaseShare: the share of the CPU in database client code
	// (a DB-API cursor, database/sql, JDBC, an ORM) under a user function.
	FigDatabaseShare Figure = "database_share"
)

// The figures of the service and the machine in the window.
const (
	FigCoresMean     Figure = "cores_mean"      // the service's mean CPU use
	FigCoresMax      Figure = "cores_max"       // its peak CPU use
	FigCPULimit      Figure = "cpu_limit_cores" // its CPU budget
	FigThrottled     Figure = "throttled_share" // its periods throttled
	FigThrottledTime Figure = "throttled_s"     // its time throttled
	FigMaxRPS        Figure = "max_rps"         // the throughput its budget caps
	FigCPUTime       Figure = "cpu_s"           // its CPU time in the window
	FigRunqueueTime  Figure = "runqueue_wait_s" // its threads' time in the kernel's run queue
	FigHostCores     Figure = "host_cores"      // the machine's cores
	FigOtherCores    Figure = "other_cores"     // other processes' CPU use
	FigPerflabCores  Figure = "perflab_cores"   // perflab's (the load generator's)
	FigStealCores    Figure = "steal_cores"     // the hypervisor's (steal)
	FigServiceCores  Figure = "service_cores"   // the service's, as the machine saw it
)

// The figures of a batch program's run, from its start to its exit.
const (
	FigWallTime       Figure = "wall_s"           // its wall time
	FigUsableCores    Figure = "usable_cores"     // the cores it could use
	FigCPUSetCores    Figure = "cpuset_cores"     // the cores of its affinity
	FigThreadsWaiting Figure = "threads_waiting"  // its threads waiting for a CPU, on average
	FigPhaseFrom      Figure = "phase_from_s"     // a phase's start, from the program's
	FigPhaseTo        Figure = "phase_to_s"       // and its end
	FigSavedTime      Figure = "saved_s"          // the wall time a change would save
	FigSavedShare     Figure = "saved_share"      // that, of the wall time
	FigTimelineStep   Figure = "timeline_step_us" // the step of the timeline a phase was found in
)

// The figures of a request's time, per request.
const (
	FigLatency        Figure = "latency_us"            // mean latency
	FigLatencyP99     Figure = "p99_us"                // 99th percentile of latency
	FigCPU            Figure = "cpu_us"                // CPU per request
	FigOffShare       Figure = "off_cpu_share"         // share of a request's time off a CPU
	FigRunqueue       Figure = "runqueue_us"           // waiting in the kernel's run queue
	FigServiceQueue   Figure = "service_runqueue_us"   // the service's threads' part of it
	FigGeneratorQueue Figure = "generator_runqueue_us" // the load generator's part of it
	FigOtherWait      Figure = "other_wait_us"         // off a CPU, not in the run queue
	FigSyscallShare   Figure = "syscall_share"         // share of its CPU in system calls
	FigBlocked        Figure = "blocked_us"            // blocked in a wait
	FigRunnable       Figure = "runnable_us"           // runnable after a wait, or for a P
	FigKernelWait     Figure = "kernel_wait_us"        // running for Go, held off a CPU by the kernel
	FigSchedWait      Figure = "sched_wait_us"         // waiting for a CPU, from a trace
	FigExplained      Figure = "explained_us"          // what the findings above name
	FigUnexplained    Figure = "unexplained_us"        // what nothing names
	FigTraced         Figure = "traced_s"              // the length of the traced slice
	FigTracedRequests Figure = "traced_requests"       // the requests in it
	FigTracedTotal    Figure = "traced_us"             // a request's traced time
)

// The figures of the Go runtime, the heap and goroutines.
const (
	FigAllocRate       Figure = "alloc_bytes_per_s"      // allocation rate
	FigCollections     Figure = "collections"            // collections in the window
	FigHeapPeak        Figure = "heap_peak_bytes"        // the heap's peak
	FigGOMAXPROCS      Figure = "gomaxprocs"             // the Ps the service ran
	FigGOMAXPROCSMatch Figure = "gomaxprocs_match"       // the Ps its budget allows
	FigPBusy           Figure = "p_busy_share"           // the Ps' busy share of the traced time
	FigGCStop          Figure = "gc_stop_us"             // the world stopped for the collector, in all
	FigGCCycles        Figure = "gc_cycles"              // the collections traced
	FigGCStopMean      Figure = "gc_stop_mean_us"        // the world stopped, per collection
	FigGoroutinesStart Figure = "goroutines_start"       // goroutines at the window's start
	FigGoroutinesEnd   Figure = "goroutines_end"         // and at its end
	FigGoroutinesAdded Figure = "goroutines_added"       // a function's new goroutines
	FigHeapSlope       Figure = "heap_bytes_per_s"       // the live heap's growth
	FigHeapFrom        Figure = "heap_from_bytes"        // the heap compared at the start
	FigHeapTo          Figure = "heap_to_bytes"          // and at the end
	FigLiveStart       Figure = "live_start_bytes"       // gctrace's live heap at the start
	FigLiveEnd         Figure = "live_end_bytes"         // and at the end
	FigCount           Figure = "count"                  // threads or goroutines
	FigInFlight        Figure = "in_flight"              // requests in flight on average (throughput × latency)
	FigPerCore         Figure = "requests_per_core"      // those per core of the budget
	FigThreadsMax      Figure = "threads_max"            // the service's peak thread count
	FigOverCounted     Figure = "profiled_over_measured" // the CPU the profile stands for, over the CPU measured
	FigStarted         Figure = "processes_started"      // the service's workers started in the window
	FigImportShare     Figure = "import_share"           // the share of the CPU in importing modules
	FigMemoryLimit     Figure = "memory_limit_bytes"     // the memory budget (--memory)
	FigRSSPeak         Figure = "rss_peak_bytes"         // the service's peak resident memory sampled
)

// The figures of a database peer.
const (
	FigQueries    Figure = "queries_per_request" // round trips to it per request
	FigAnswer     Figure = "answer_us"           // its mean time to answer one
	FigPeerCPU    Figure = "peer_cpu_us"         // its CPU per request
	FigQueriesMin Figure = "queries_min"         // the count from which they are an N+1 shape
)

// The figures of why a service was found stuck (Stuck.Kind).
const (
	FigStalled  Figure = "stalled_us"        // how long no request finished
	FigFinished Figure = "finished_requests" // the requests that finished in the window
)

// The figures of the connections a network stall was measured on.
const (
	FigConns      Figure = "connections"       // the connections the service sent on
	FigNagleConns Figure = "nagle_connections" // those with Nagle's algorithm on
)

// figuresBy lists the figures of each measure.
var figuresBy = map[Measure][]Figure{
	MeasureShare: {FigImportShare, FigShare, FigSavedShare, FigOwnShare, FigLibraryShare, FigDatabaseShare, FigThrottled, FigOffShare, FigSyscallShare, FigPBusy},
	MeasureMicros: {FigCPUPerRequest, FigExclusiveCPU, FigWaitPerRequest, FigWaitTotal, FigLatency, FigLatencyP99, FigCPU, FigRunqueue,
		FigServiceQueue, FigGeneratorQueue, FigOtherWait, FigBlocked, FigRunnable, FigKernelWait, FigSchedWait,
		FigExplained, FigUnexplained, FigTracedTotal, FigGCStop, FigGCStopMean, FigAnswer, FigPeerCPU, FigTimelineStep, FigStalled},
	MeasureBytes: {FigBytesPerRequest, FigHeapPeak, FigHeapFrom, FigHeapTo, FigLiveStart, FigLiveEnd, FigMemoryLimit, FigRSSPeak},
	MeasureCount: {FigObjectsPerRequest, FigHostCores, FigTracedRequests, FigCollections, FigGOMAXPROCS,
		FigGOMAXPROCSMatch, FigGCCycles, FigGoroutinesStart, FigGoroutinesEnd, FigGoroutinesAdded, FigCount, FigInFlight, FigPerCore, FigThreadsMax,
		FigUsableCores, FigCPUSetCores, FigThreadsWaiting, FigQueries, FigQueriesMin, FigOverCounted, FigStarted,
		FigConns, FigNagleConns, FigFinished},
	MeasureCores:   {FigCoresMean, FigCoresMax, FigCPULimit, FigOtherCores, FigPerflabCores, FigStealCores, FigServiceCores},
	MeasureSeconds: {FigThrottledTime, FigCPUTime, FigRunqueueTime, FigTraced, FigWallTime, FigPhaseFrom, FigPhaseTo, FigSavedTime},
	MeasureRate:    {FigMaxRPS},
	MeasureBytesPS: {FigAllocRate, FigHeapSlope},
}

// figureMeasures is each figure's measure.
var figureMeasures = func() map[Figure]Measure {
	out := map[Figure]Measure{}
	for m, fs := range figuresBy {
		for _, f := range fs {
			out[f] = m
		}
	}
	return out
}()

// FigureNames lists the figures, in alphabetical order.
var FigureNames = newVocabulary("figure", slices.Sorted(maps.Keys(figureMeasures))...)

// Measure is what the figure's value counts (a count for a figure it
// does not know).
func (f Figure) Measure() Measure {
	if m, ok := figureMeasures[f]; ok {
		return m
	}
	return MeasureCount
}

// UnmarshalText reads a figure's name, refusing one it does not know.
func (f *Figure) UnmarshalText(b []byte) error { return FigureNames.unmarshal(f, b) }

// Figures are a finding's (or one of its functions') quantities by name.
type Figures map[Figure]float64

// With sets figure f to v, making the map when it is nil.
func (fs Figures) With(f Figure, v float64) Figures {
	if fs == nil {
		fs = Figures{}
	}
	fs[f] = v
	return fs
}
