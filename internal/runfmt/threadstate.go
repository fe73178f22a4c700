package runfmt

// ThreadState is where a thread's time went as the kernel's scheduler
// saw it: on a CPU, waiting for one, or asleep and why (the system call
// it slept in). The rows of a batch run's thread time (run.json's
// batch.threads.states), and the states package ktrace tells a thread
// off a CPU in (sleep, futex, disk, network, other).
type ThreadState string

// The thread states, in report order.
const (
	// ThreadOnCPU is running on a CPU.
	ThreadOnCPU ThreadState = "on-cpu"
	// ThreadRunnable is ready to run, waiting for a CPU: other work on
	// the machine, the CPU budget, or more busy threads than CPUs.
	ThreadRunnable ThreadState = "runnable"
	// ThreadSleep is asleep for a time (nanosleep, clock_nanosleep).
	ThreadSleep ThreadState = "sleep"
	// ThreadFutex is waiting on a futex: a lock or condition, and also an
	// idle worker thread parked until there is work (the Go runtime's
	// idle threads, a pool's).
	ThreadFutex ThreadState = "futex"
	// ThreadDisk is an uninterruptible sleep: disk I/O, page faults read
	// from disk, some kernel locks.
	ThreadDisk ThreadState = "disk"
	// ThreadNetwork is waiting for readiness or in a blocking read or
	// write (sockets, also pipes and terminals: the call does not say).
	ThreadNetwork ThreadState = "network"
	// ThreadOther is any other sleep (waiting for a child, a signal,
	// io_uring, a stopped thread).
	ThreadOther ThreadState = "other"
)

// ThreadStates lists the thread states in report order.
var ThreadStates = newVocabulary("thread state", ThreadOnCPU, ThreadRunnable, ThreadSleep, ThreadFutex, ThreadDisk, ThreadNetwork, ThreadOther)

// UnmarshalText reads a state's name, refusing one it does not know.
func (s *ThreadState) UnmarshalText(b []byte) error { return ThreadStates.unmarshal(s, b) }
