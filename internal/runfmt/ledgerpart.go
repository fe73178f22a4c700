package runfmt

// LedgerPart is a part of a request's time in the ledger's time account
// (run.json's ledger.time.rows[].part): every millisecond of the mean
// latency is in exactly one part, or unexplained.
type LedgerPart string

// The parts, in report order.
const (
	// PartGenerator is the load generator's own delay: an open-model
	// arrival sent late, and the generator waiting for a CPU.
	PartGenerator LedgerPart = "generator"
	// PartAccept is waiting to be accepted: from the connection's
	// handshake to the service's accept() (the accept backlog; a pre-fork
	// server's queue for a free worker).
	PartAccept LedgerPart = "accept"
	// PartQueue is waiting to be read: from a request's (or a peer's
	// answer's) bytes arriving to the service reading them (a worker
	// pool's queue, a busy event loop).
	PartQueue LedgerPart = "queue"
	// PartCPU is on a CPU doing the request's work.
	PartCPU LedgerPart = "cpu"
	// PartRunnable is ready to run and waiting for a CPU (for Go, also a
	// P): other processes on the cores, more runnable threads than cores.
	PartRunnable LedgerPart = "runnable"
	// PartThrottled is waiting for the CPU budget: CFS throttling.
	PartThrottled LedgerPart = "throttled"
	// PartGC is stopped by or working for the garbage collector.
	PartGC LedgerPart = "gc"
	// PartLock is waiting for a lock, a condition, a channel or another
	// request's goroutine.
	PartLock LedgerPart = "lock"
	// PartPool is waiting for a connection pool or a semaphore.
	PartPool LedgerPart = "pool"
	// PartDownstream is a peer's time to answer, one row per peer,
	// measured at the socket: from the service's last bytes sent to the
	// answer's first bytes.
	PartDownstream LedgerPart = "downstream"
	// PartSleep is asleep on a timer (time.Sleep, time.sleep()).
	PartSleep LedgerPart = "sleep"
	// PartDisk is an uninterruptible wait: disk I/O, page faults.
	PartDisk LedgerPart = "disk"
	// PartSyscall is in another system call.
	PartSyscall LedgerPart = "syscall"
	// PartNetwork is the request's own connection: response bytes held
	// in the kernel (Nagle's algorithm waiting for the client's delayed
	// ACK), a slow client.
	PartNetwork LedgerPart = "network"
	// PartUnexplained is the latency no measured part accounts for: the
	// time account's unexplained_ms, never a row.
	PartUnexplained LedgerPart = "unexplained"
)

// LedgerParts lists the parts in report order, unexplained last.
var LedgerParts = newVocabulary("ledger part",
	PartGenerator, PartAccept, PartQueue, PartCPU, PartRunnable, PartThrottled, PartGC, PartLock, PartPool,
	PartDownstream, PartSleep, PartDisk, PartSyscall, PartNetwork, PartUnexplained,
)

// UnmarshalText reads a part's name, refusing one it does not know.
func (p *LedgerPart) UnmarshalText(b []byte) error { return LedgerParts.unmarshal(p, b) }
