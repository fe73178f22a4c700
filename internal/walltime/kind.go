package walltime

import "perflab/internal/runfmt"

// Kind is where a goroutine's wall time goes: the columns of perflab's
// time-per-request table.
type Kind uint8

// The kinds of wall time, in the order they are reported.
const (
	Running  Kind = iota // on a P, executing (its thread may still wait for a CPU in the kernel)
	Runnable             // ready to run, waiting for a P: scheduler latency
	Network              // blocked on the network, or in a call to another service
	Sync                 // blocked on a mutex, channel, select, WaitGroup, Cond, pool or semaphore
	Syscall              // in a system call
	GC                   // assisting the garbage collector, waiting for it, or stopped by it
	Sleep                // in time.Sleep
	NumKinds
)

// String is the kind's name as run.json and the profiles spell it
// (runfmt.TimeKindNames).
func (k Kind) String() string {
	if k < NumKinds {
		return runfmt.TimeKindNames[k]
	}
	return "unknown"
}

// Kinds lists every kind in report order.
func Kinds() []Kind {
	ks := make([]Kind, NumKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// Wait is the precise reason behind an interval of wall time, finer than its
// Kind; profiles carry it as the sample label "wait".
type Wait uint8

// The waits. Each belongs to one Kind (see [Wait.Kind]).
const (
	WaitCPU        Wait = iota // running
	WaitRunnable               // runnable: waiting for a P
	WaitClient                 // the request's own connection: reading its body, writing to a slow client
	WaitDownstream             // another service: a net/http or gRPC call, any other socket
	WaitLock                   // sync.Mutex, sync.RWMutex
	WaitChannel                // channel send or receive, select
	WaitGroup                  // sync.WaitGroup.Wait: waiting for goroutines it started
	WaitCond                   // sync.Cond.Wait
	WaitPool                   // a connection pool or semaphore: database/sql, net/http's per-host limit, x/sync/semaphore
	WaitSync                   // another synchronisation (runtime internals, unspecified)
	WaitSyscall                // a system call
	WaitGCAssist               // running a GC mark assist
	WaitGCWait                 // waiting for the GC (assist work, the end of a cycle)
	WaitGCStop                 // runnable while the world was stopped
	WaitSleep                  // time.Sleep
	numWaits
)

var waitInfo = [numWaits]struct {
	name string
	kind Kind
}{
	WaitCPU:        {"cpu", Running},
	WaitRunnable:   {"runnable", Runnable},
	WaitClient:     {"client", Network},
	WaitDownstream: {"downstream", Network},
	WaitLock:       {"lock", Sync},
	WaitChannel:    {"channel", Sync},
	WaitGroup:      {"waitgroup", Sync},
	WaitCond:       {"cond", Sync},
	WaitPool:       {"pool", Sync},
	WaitSync:       {"sync", Sync},
	WaitSyscall:    {"syscall", Syscall},
	WaitGCAssist:   {"gc-assist", GC},
	WaitGCWait:     {"gc-wait", GC},
	WaitGCStop:     {"gc-stop", GC},
	WaitSleep:      {"sleep", Sleep},
}

// String is the wait's label value.
func (w Wait) String() string {
	if w < numWaits {
		return waitInfo[w].name
	}
	return "unknown"
}

// Kind is the kind of wall time the wait is.
func (w Wait) Kind() Kind {
	if w < numWaits {
		return waitInfo[w].kind
	}
	return Sync
}

// LabelKey is the sample label that names a profile sample's Wait.
const LabelKey = runfmt.WaitLabel
