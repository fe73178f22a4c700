package runfmt

// TimeKind is a kind of wall time: the rows of the time-per-request split
// (run.json's time_per_request.kinds) and the sample types of a wall-time
// profile after WallSample and OffCPUSample.
type TimeKind string

// The kinds of wall time, in report order.
const (
	// TimeRunning is on a CPU (a Go goroutine on a P, whose thread may
	// still wait for a CPU in the kernel).
	TimeRunning TimeKind = "running"
	// TimeRunnable is ready to run and waiting for a CPU (for Go, a P):
	// scheduler latency.
	TimeRunnable TimeKind = "runnable"
	// TimeNetwork is blocked on the network: the request's own connection
	// or a call to another service.
	TimeNetwork TimeKind = "network"
	// TimeSync is blocked on a mutex, channel, select, WaitGroup, Cond,
	// pool or semaphore.
	TimeSync TimeKind = "sync"
	// TimeSyscall is in a system call.
	TimeSyscall TimeKind = "syscall"
	// TimeGC is assisting the garbage collector, waiting for it, or
	// stopped by it.
	TimeGC TimeKind = "gc"
	// TimeSleep is asleep (time.Sleep, sleep()).
	TimeSleep TimeKind = "sleep"
	// TimeOther is off a CPU for a reason a wall-clock sampler or the
	// kernel's scheduler events cannot tell (a Go trace always can).
	TimeOther TimeKind = "other"
)

// TimeKinds lists the kinds of wall time in report order.
var TimeKinds = newVocabulary("kind of wall time", TimeRunning, TimeRunnable, TimeNetwork, TimeSync, TimeSyscall, TimeGC, TimeSleep, TimeOther)

// UnmarshalText reads a kind's name, refusing one it does not know.
func (k *TimeKind) UnmarshalText(b []byte) error { return TimeKinds.unmarshal(k, b) }
