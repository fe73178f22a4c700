package runfmt

// Wait is the precise reason behind an interval of wall time, finer than
// its TimeKind: the sample label WaitLabel of a wall-time profile, and the
// keys of a kind's waits in run.json.
type Wait string

// The waits; each belongs to one TimeKind (see Wait.Kind).
const (
	WaitCPU      Wait = "cpu"      // running
	WaitRunnable Wait = "runnable" // runnable: waiting for a CPU (a P)
	// WaitClient is the request's own connection: reading its body,
	// writing to a slow client.
	WaitClient Wait = "client"
	// WaitDownstream is another service: an HTTP or gRPC call, any other
	// socket.
	WaitDownstream Wait = "downstream"
	WaitLock       Wait = "lock"      // a mutex (sync.Mutex, sync.RWMutex, a futex, a Python lock)
	WaitChannel    Wait = "channel"   // a channel send or receive, select, a queue
	WaitGroup      Wait = "waitgroup" // sync.WaitGroup.Wait: waiting for goroutines it started
	WaitCond       Wait = "cond"      // sync.Cond.Wait
	// WaitPool is a connection pool or semaphore: database/sql, net/http's
	// per-host limit, x/sync/semaphore.
	WaitPool     Wait = "pool"
	WaitSync     Wait = "sync"      // another synchronisation (runtime internals, unspecified)
	WaitSyscall  Wait = "syscall"   // a system call
	WaitGCAssist Wait = "gc-assist" // running a GC mark assist
	WaitGCWait   Wait = "gc-wait"   // waiting for the GC (assist work, the end of a cycle)
	WaitGCStop   Wait = "gc-stop"   // runnable while the world was stopped
	WaitSleep    Wait = "sleep"     // asleep (time.Sleep, sleep())
	// WaitOther is off a CPU for a reason a sampler cannot tell.
	WaitOther Wait = "other"
)

// waitInfo is each wait's kind, and whether it parks its goroutine (or
// thread) until something else wakes it: the runnable time after such a
// wait, at the same stack, is part of the wait.
var waitInfo = map[Wait]struct {
	kind  TimeKind
	parks bool
}{
	WaitCPU:        {TimeRunning, false},
	WaitRunnable:   {TimeRunnable, false},
	WaitClient:     {TimeNetwork, true},
	WaitDownstream: {TimeNetwork, true},
	WaitLock:       {TimeSync, true},
	WaitChannel:    {TimeSync, true},
	WaitGroup:      {TimeSync, true},
	WaitCond:       {TimeSync, true},
	WaitPool:       {TimeSync, true},
	WaitSync:       {TimeSync, true},
	WaitSyscall:    {TimeSyscall, true},
	WaitGCAssist:   {TimeGC, false},
	WaitGCWait:     {TimeGC, true},
	WaitGCStop:     {TimeGC, false},
	WaitSleep:      {TimeSleep, true},
	WaitOther:      {TimeOther, false},
}

// Waits lists the waits, grouped by kind in report order.
var Waits = newVocabulary("wait",
	WaitCPU, WaitRunnable, WaitClient, WaitDownstream, WaitLock, WaitChannel, WaitGroup, WaitCond,
	WaitPool, WaitSync, WaitSyscall, WaitGCAssist, WaitGCWait, WaitGCStop, WaitSleep, WaitOther,
)

// Kind is the kind of wall time the wait is; an unknown wait is TimeSync.
func (w Wait) Kind() TimeKind {
	if i, ok := waitInfo[w]; ok {
		return i.kind
	}
	return TimeSync
}

// Parks says whether the wait parks its goroutine or thread until
// something else wakes it, so the runnable time after it belongs to it.
func (w Wait) Parks() bool { return waitInfo[w].parks }

// UnmarshalText reads a wait's name, refusing one it does not know.
func (w *Wait) UnmarshalText(b []byte) error { return Waits.unmarshal(w, b) }
