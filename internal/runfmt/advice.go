package runfmt

// Advice names what a finding advises: run.json's findings[].advice.
// Package findings holds each one's words, next to the rule that gives it.
type Advice string

// Advice about CPU.
const (
	AdviceCheaperOrMoreCPU Advice = "cheaper-or-more-cpu" // a CPU-bound service
	AdviceAllocateLess     Advice = "allocate-less"       // the GC's share
	AdviceBuildStrings     Advice = "build-strings"       // formatting
	AdviceReuseEncoders    Advice = "reuse-encoders"      // encoding
	AdviceCacheRendered    Advice = "cache-rendered"      // template execution
	AdviceCompressLess     Advice = "compress-less"       // compression
	AdviceCacheReads       Advice = "cache-reads"         // database and file reads
	AdviceCompileOnce      Advice = "compile-once"        // regular expressions
	AdviceAvoidReflect     Advice = "avoid-reflect"       // reflection
	AdviceCacheOrCallees   Advice = "cache-or-callees"    // a cost spread over callees
	AdviceStartHere        Advice = "start-here"          // a cost in one function
	AdviceBuildOnce        Advice = "build-once"          // a constructor called per request
)

// Advice about waiting.
const (
	AdviceCheckLocks            Advice = "check-locks"              // off a CPU: locks and what the handler calls
	AdviceCheckWorkers          Advice = "check-workers"            // off a CPU: pre-fork workers (Python, Ruby)
	AdviceCheckEventLoop        Advice = "check-event-loop"         // off a CPU: node's event loop
	AdviceCheckThreads          Advice = "check-threads"            // off a CPU: a JVM's locks and pools
	AdviceLowerGOMAXPROCS       Advice = "lower-gomaxprocs"         // CPU contention, Go
	AdviceFewerWorkers          Advice = "fewer-workers"            // CPU contention, Python or Ruby
	AdviceFewerProcesses        Advice = "fewer-processes"          // CPU contention, node
	AdviceShrinkPools           Advice = "shrink-pools"             // CPU contention, JVM and others
	AdviceShardLocks            Advice = "shard-locks"              // lock waits, from mutex or block profiles
	AdviceShortenLocks          Advice = "shorten-locks"            // lock waits, from wall time
	AdviceFixLeak               Advice = "fix-leak"                 // goroutines that accumulate
	AdviceCallConcurrent        Advice = "call-concurrently"        // a downstream wait
	AdviceSizePool              Advice = "size-pool"                // a pool wait
	AdviceWaitLess              Advice = "wait-less"                // waiting for other goroutines
	AdviceRemoveSleep           Advice = "remove-sleep"             // a sleep on the request path
	AdviceAvoidSyscalls         Advice = "avoid-syscalls"           // blocking system calls
	AdviceStreamBodies          Advice = "stream-bodies"            // the client's connection
	AdviceHeapRoom              Advice = "heap-room"                // GC pauses
	AdviceMoreCPU               Advice = "more-cpu"                 // scheduler latency
	AdviceFewerThreadsThanCores Advice = "fewer-threads-than-cores" // the runtime spun waiting for threads without a CPU
	AdviceMatchGOMAXPROCS       Advice = "match-gomaxprocs"         // GOMAXPROCS above the budget
	AdviceThreadsToQuota        Advice = "threads-to-quota"         // busy threads above the budget
	AdviceBoundGrowth           Advice = "bound-growth"             // a live heap that grows
	AdviceOneQuery              Advice = "one-query"                // one query per row (N+1)
	AdviceStartWarm             Advice = "start-warm"               // workers started in the window
	AdviceImportEarly           Advice = "import-early"             // modules imported in the window
	AdviceNoDelay               Advice = "no-delay"                 // Nagle's algorithm holding responses
)

// Advice for requests that stopped finishing, by what they wait for.
const (
	AdviceFreePoolSlots Advice = "free-pool-slots" // a pool's holders keep their slots
	AdviceCallTimeouts  Advice = "call-timeouts"   // a peer that never answers
	AdviceReleaseLocks  Advice = "release-locks"   // a lock or channel nobody releases
	AdviceEndRetries    Advice = "end-retries"     // a sleep without end
	AdviceEndLoops      Advice = "end-loops"       // a loop without end
	AdviceUnstallGC     Advice = "unstall-gc"      // a GC that cannot stop the world
)

// Advice for a batch program.
const (
	AdviceFanOut       Advice = "fan-out"       // serial work, Go: goroutines over GOMAXPROCS
	AdviceWorkerPool   Advice = "worker-pool"   // serial work, other programs: a pool of workers
	AdviceMeasureAlone Advice = "measure-alone" // it waited for a CPU others held
	AdviceLargerBudget Advice = "larger-budget" // its CPU quota throttled it
)

// Advice about memory.
const (
	AdviceMoreMemory Advice = "more-memory" // the OOM killer killed it at its memory budget
)

// Advices lists the advice keys.
var Advices = newVocabulary("advice",
	AdviceCheaperOrMoreCPU, AdviceAllocateLess, AdviceBuildStrings, AdviceReuseEncoders, AdviceCacheRendered,
	AdviceCompressLess, AdviceCacheReads, AdviceCompileOnce, AdviceAvoidReflect, AdviceCacheOrCallees, AdviceStartHere, AdviceBuildOnce,
	AdviceCheckLocks, AdviceCheckWorkers, AdviceCheckEventLoop, AdviceCheckThreads, AdviceLowerGOMAXPROCS, AdviceFewerWorkers,
	AdviceFewerProcesses, AdviceShrinkPools, AdviceShardLocks, AdviceShortenLocks, AdviceFixLeak, AdviceCallConcurrent,
	AdviceSizePool, AdviceWaitLess, AdviceRemoveSleep, AdviceAvoidSyscalls, AdviceStreamBodies, AdviceHeapRoom,
	AdviceMoreCPU, AdviceFewerThreadsThanCores, AdviceMatchGOMAXPROCS, AdviceThreadsToQuota, AdviceBoundGrowth, AdviceOneQuery, AdviceStartWarm, AdviceImportEarly,
	AdviceFreePoolSlots, AdviceCallTimeouts, AdviceReleaseLocks, AdviceEndRetries, AdviceEndLoops, AdviceUnstallGC,
	AdviceFanOut, AdviceWorkerPool, AdviceMeasureAlone, AdviceLargerBudget, AdviceMoreMemory,
	AdviceNoDelay,
)

// UnmarshalText reads an advice's name, refusing one it does not know.
func (a *Advice) UnmarshalText(b []byte) error { return Advices.unmarshal(a, b) }
