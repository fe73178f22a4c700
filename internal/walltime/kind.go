package walltime

import (
	"slices"

	"perflab/internal/runfmt"
)

// Kind is where a goroutine's wall time goes: the columns of perflab's
// time-per-request table, a dense index of runfmt.TimeKind.
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

// kindNames are the kinds' names, runfmt's in its order: a Kind is the
// index of its name there (runfmt's last, "other", is not a Go trace's).
var kindNames = runfmt.TimeKinds.List()[:NumKinds]

// Name is the kind's name in run.json and the profiles.
func (k Kind) Name() runfmt.TimeKind {
	if k < NumKinds {
		return kindNames[k]
	}
	return "unknown"
}

// String is the kind's name.
func (k Kind) String() string { return string(k.Name()) }

// Kinds lists every kind in report order.
func Kinds() []Kind {
	ks := make([]Kind, NumKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// Wait is the precise reason behind an interval of wall time, finer than its
// Kind; profiles carry its name (runfmt.Wait) as the sample label "wait".
// A dense index of runfmt's waits, in their order.
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

// waitNames are the waits' names, runfmt's in its order: a Wait is the
// index of its name there (runfmt's last, "other", is not a Go trace's);
// waitKinds their kinds, looked up once.
var (
	waitNames = runfmt.Waits.List()[:numWaits]
	waitKinds = func() (ks [numWaits]Kind) {
		for w, name := range waitNames {
			ks[w] = Kind(slices.Index(kindNames, name.Kind()))
		}
		return ks
	}()
)

// Name is the wait's label value.
func (w Wait) Name() runfmt.Wait {
	if w < numWaits {
		return waitNames[w]
	}
	return "unknown"
}

// String is the wait's label value.
func (w Wait) String() string { return string(w.Name()) }

// Kind is the kind of wall time the wait is.
func (w Wait) Kind() Kind {
	if w < numWaits {
		return waitKinds[w]
	}
	return Sync
}

// LabelKey is the sample label that names a profile sample's Wait.
const LabelKey = runfmt.WaitLabel
