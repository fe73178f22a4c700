package runfmt

// FindingKind is what a finding is about: run.json's findings[].kind, and
// the tag the reports print before its title.
type FindingKind string

// The finding kinds. CPU: where the service's CPU goes.
const (
	// FindingCPUBound: the service ran at its CPU budget.
	FindingCPUBound FindingKind = "cpu-bound"
	// FindingGC: the garbage collector takes a large share of the CPU.
	FindingGC FindingKind = "gc"
	// FindingFormatting: string formatting (fmt) under a user function.
	FindingFormatting FindingKind = "formatting"
	// FindingEncoding: encoding (JSON, XML, protobuf, images) or template
	// execution under a user function.
	FindingEncoding FindingKind = "encoding"
	// FindingReflection: reflection on the request path.
	FindingReflection FindingKind = "reflection"
	// FindingCompression: compressing responses.
	FindingCompression FindingKind = "compression"
	// FindingRegexp: regular expressions, compiled or run per request.
	FindingRegexp FindingKind = "regexp"
	// FindingHotUserFunction: a user function that owns much of the CPU.
	FindingHotUserFunction FindingKind = "hot-user-function"
	// FindingRepeatedWork: cacheable work (reads, encoding) done per
	// request.
	FindingRepeatedWork FindingKind = "repeated-work"
	// FindingConstructor: a library constructor (a compressor, an
	// encoder, a compiled pattern or template, a client) built on every
	// request under a user function, holding most of its cost.
	FindingConstructor FindingKind = "constructor"
)

// Finding kinds about time off a CPU and the machine.
const (
	// FindingOffCPU: requests take longer than their CPU, and what was
	// checked of the waiting.
	FindingOffCPU FindingKind = "off-cpu"
	// FindingCPUContention: the service waited for a CPU others held.
	FindingCPUContention FindingKind = "cpu-contention"
	// FindingSpinWait: the runtime burnt CPU spinning while it waited for
	// another thread (a goroutine to stop for the GC, a runtime lock).
	FindingSpinWait FindingKind = "spin-wait"
	// FindingLockContention: requests wait for locks (or a Cond).
	FindingLockContention FindingKind = "lock-contention"
	// FindingGoroutineGrowth: goroutines accumulate over the window.
	FindingGoroutineGrowth FindingKind = "goroutine-growth"
	// FindingDownstreamWait: requests wait for another service.
	FindingDownstreamWait FindingKind = "downstream-wait"
	// FindingPoolWait: requests wait for a pool's connection or a
	// semaphore's slot.
	FindingPoolWait FindingKind = "pool-wait"
	// FindingSyncWait: requests wait for other goroutines (channels,
	// select, WaitGroup).
	FindingSyncWait FindingKind = "sync-wait"
	// FindingSleep: requests sleep.
	FindingSleep FindingKind = "sleep"
	// FindingSyscallWait: requests wait in system calls.
	FindingSyscallWait FindingKind = "syscall-wait"
	// FindingClientIO: requests wait on their own connection (a slow
	// client, a large body).
	FindingClientIO FindingKind = "client-io"
	// FindingGCPause: requests wait for the garbage collector.
	FindingGCPause FindingKind = "gc-pause"
	// FindingSchedulerLatency: runnable goroutines wait for a P.
	FindingSchedulerLatency FindingKind = "scheduler-latency"
	// FindingGOMAXPROCS: GOMAXPROCS above the CPU budget of a throttled
	// service.
	FindingGOMAXPROCS FindingKind = "gomaxprocs"
	// FindingThrottled: the CPU budget's throttling, caused by more busy
	// threads (workers, pools) than the quota's cores.
	FindingThrottled FindingKind = "cpu-throttled"
	// FindingMemoryGrowth: the live heap grows over the window.
	FindingMemoryGrowth FindingKind = "memory-growth"
	// FindingStuck: requests stopped finishing; where the service's
	// threads (or goroutines) wait, from one snapshot of all their stacks.
	// It comes first among the findings; its line's Pct is the share of
	// the requests in flight that wait there.
	FindingStuck FindingKind = "stuck"
	// FindingNPlusOne: requests make many round trips to a database, one
	// query per row (the N+1 shape), from the ledger's downstream row.
	FindingNPlusOne FindingKind = "n-plus-one"
	// FindingSerial: a batch program kept fewer cores busy than it could
	// use (one thread doing the work on a machine of several cores).
	FindingSerial FindingKind = "serial"
	// FindingSerialPhase: a span of a batch program's run in which it
	// kept about one core busy while it could use more, with the code
	// that ran in it.
	FindingSerialPhase FindingKind = "serial-phase"
	// FindingStartup: start-up work in the window, not a cost of each
	// request: workers started during it (recycled workers, a pool that
	// grew) before they were sampled, and modules imported.
	FindingStartup FindingKind = "start-up"
	// FindingOutOfMemory: the kernel's OOM killer killed the service (or
	// the program) at its memory budget (--memory). It comes first among
	// the findings.
	FindingOutOfMemory FindingKind = "out-of-memory"
	// FindingNetworkStall: responses held in the kernel by Nagle's
	// algorithm until the client acknowledges the bytes before (which it
	// delays), from the ledger's network row.
	FindingNetworkStall FindingKind = "network-stall"
)

// FindingKinds lists the finding kinds.
var FindingKinds = newVocabulary("finding kind",
	FindingCPUBound, FindingGC, FindingFormatting, FindingEncoding, FindingReflection, FindingCompression,
	FindingRegexp, FindingHotUserFunction, FindingRepeatedWork, FindingConstructor,
	FindingOffCPU, FindingCPUContention, FindingSpinWait, FindingLockContention, FindingGoroutineGrowth,
	FindingDownstreamWait, FindingPoolWait, FindingSyncWait, FindingSleep, FindingSyscallWait,
	FindingClientIO, FindingGCPause, FindingSchedulerLatency, FindingGOMAXPROCS, FindingThrottled, FindingMemoryGrowth, FindingStuck,
	FindingSerial, FindingSerialPhase, FindingNPlusOne, FindingStartup, FindingOutOfMemory,
	FindingNetworkStall,
)

// UnmarshalText reads a finding kind's name, refusing one it does not know.
func (k *FindingKind) UnmarshalText(b []byte) error { return FindingKinds.unmarshal(k, b) }
