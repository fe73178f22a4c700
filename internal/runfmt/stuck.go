package runfmt

// StackSource is a tool that read a process's stacks for a Stuck snapshot.
type StackSource string

// The stack sources.
const (
	// StackSourcePprof is a Go service's goroutine profile with debug=2
	// from its net/http/pprof endpoint: every goroutine's stack as a
	// panic prints it.
	StackSourcePprof StackSource = "pprof-goroutine"
	// StackSourcePySpy is `py-spy dump --json --pid P`: every Python
	// thread's stack.
	StackSourcePySpy StackSource = "py-spy"
	// StackSourceRbSpy is `rbspy snapshot --pid P`: the stack of the Ruby
	// thread that holds the interpreter's lock, not every thread's.
	StackSourceRbSpy StackSource = "rbspy"
	// StackSourceJcmd is `jcmd P Thread.print`: every JVM thread's stack.
	StackSourceJcmd StackSource = "jcmd"
	// StackSourceKernel is the kernel's view of each thread under
	// /proc/P/task: its state, the system call it is in and the kernel
	// function it sleeps in, and the peer of the socket it reads.
	StackSourceKernel StackSource = "kernel"
)

// Units a StuckGroup counts.
const (
	UnitGoroutine = "goroutine"
	UnitThread    = "thread"
)

// Stuck is one snapshot of every thread's stack in the service's
// processes, taken when its requests stopped finishing, with the threads
// grouped by where they wait.
type Stuck struct {
	// Kind says what made perflab take it: no request finished for
	// StalledS seconds with InFlight in flight, or the window ended with
	// InFlight requests unfinished and Finished finished. Reason is the
	// same in the words of a run before schema 5 (its key reason).
	Kind     StuckKind `json:"kind,omitempty"`
	StalledS float64   `json:"stalled_s,omitempty"`
	Finished int64     `json:"finished,omitempty"`
	Reason   string    `json:"reason_note,omitempty"`
	// AtS is when it was taken, in seconds from the window's start.
	AtS float64 `json:"at_s"`
	// Seconds is how long the snapshot took, all processes together.
	Seconds float64 `json:"seconds"`
	// InFlight is how many requests were in flight when it was taken.
	InFlight int64 `json:"in_flight"`
	// Threads is how many threads and goroutines were read in all.
	Threads int `json:"threads"`
	// Groups are the threads grouped by where they wait: those in the
	// service's own code first, those waiting for work last, the biggest
	// group first.
	Groups []StuckGroup `json:"groups"`
	// Processes say how each process was read.
	Processes []StuckProcess `json:"processes"`
	// TimedOut says the snapshot did not finish in its time limit; the
	// groups hold what was read before.
	TimedOut bool `json:"timed_out,omitempty"`
	// Notes say what is missing: a snapshot cut by its time limit, a tool
	// not installed (with its install line), an output cut at its bound.
	Notes []string `json:"notes,omitempty"`
}

// StuckProcess is how one process was read.
type StuckProcess struct {
	PID int `json:"pid"`
	// Runtime is what it runs.
	Runtime Runtime `json:"runtime,omitempty"`
	// Source is the tool that read its stacks.
	Source StackSource `json:"source"`
	// Threads is how many threads or goroutines it read.
	Threads int `json:"threads"`
	// Bytes is the size of the tool's output.
	Bytes int64 `json:"bytes"`
	// Seconds is how long the tool took.
	Seconds float64 `json:"seconds"`
	// Truncated says the output was cut at perflab's bound.
	Truncated bool `json:"truncated,omitempty"`
	// Error says why the tool failed, when it did.
	Error string `json:"error,omitempty"`
}

// StuckGroup is the threads (or goroutines) that wait at the same place:
// the same state, blocking call and line of the service's own code.
type StuckGroup struct {
	// Count is how many wait there.
	Count int `json:"count"`
	// Unit is what Count counts: UnitGoroutine or UnitThread.
	Unit string `json:"unit"`
	// Wait is the kind of wait, in the time split's words (running,
	// network, sync, sleep, syscall, other).
	Wait TimeKind `json:"wait"`
	// State is the state as the tool printed it: "sync.Mutex.Lock",
	// "IO wait" (Go), "idle" (py-spy), "BLOCKED (on object monitor)"
	// (jcmd), "S (sleeping)" (the kernel).
	State string `json:"state,omitempty"`
	// Blocking is the call the threads wait in: the frame the service's
	// code called ("sync.(*Mutex).Lock", "Semaphore.acquire"), or the
	// system call when the stack ends in the service's code ("recvfrom").
	Blocking string `json:"blocking,omitempty"`
	// Function, File and Line are the service's own frame nearest the top
	// of the stack: the line that waits.
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	// Text is that line's source, when perflab found the file.
	Text string `json:"text,omitempty"`
	// Caller, CallerFile and CallerLine are the next frame of the
	// service's own code out: where Function was called from.
	Caller     string `json:"caller,omitempty"`
	CallerFile string `json:"caller_file,omitempty"`
	CallerLine int    `json:"caller_line,omitempty"`
	// Syscall is the system call the threads are in, per the kernel.
	Syscall string `json:"syscall,omitempty"`
	// Peer is the remote address of the socket they wait on
	// ("127.0.0.1:9999"), per the kernel.
	Peer string `json:"peer,omitempty"`
	// Pool says they wait for a pool's slot (a semaphore, a connection
	// pool); Holders is then how many threads run the same code past it,
	// holding a slot (0 when none is seen).
	Pool    bool `json:"pool,omitempty"`
	Holders int  `json:"holders,omitempty"`
	// Idle says the threads wait for work (a server's accept or event
	// loop, a signal), not on a request: they come after the others.
	Idle bool `json:"idle,omitempty"`
	// WaitMinutes is the longest wait the Go runtime reported, in whole
	// minutes (it reports waits of a minute or more).
	WaitMinutes int `json:"wait_minutes,omitempty"`
	// PIDs are the processes the threads belong to (at most 16).
	PIDs []int `json:"pids"`
	// Source is the tool that read the stacks.
	Source StackSource `json:"source"`
	// Stack is one member's stack, innermost frame first, "function
	// file:line" (at most 32 frames).
	Stack []string `json:"stack,omitempty"`
}

// Located says whether the group waits in the service's own code.
func (g *StuckGroup) Located() bool { return g.Function != "" }

// StackSources lists the stack sources.
var StackSources = newVocabulary("stack source", StackSourcePprof, StackSourcePySpy, StackSourceRbSpy, StackSourceJcmd, StackSourceKernel)

// UnmarshalText reads a source's name, refusing one it does not know.
func (s *StackSource) UnmarshalText(b []byte) error { return StackSources.unmarshal(s, b) }

// Figures are the figures of why st was taken: the requests in flight,
// and how long none finished or how many finished in the window; nil for
// a snapshot of schema 4 or older, which kept its reason in words.
func (st *Stuck) Figures() Figures {
	if st.Kind == "" {
		return nil
	}
	figs := Figures{FigInFlight: float64(st.InFlight)}
	if st.Kind == StuckNoRequestFinished {
		figs[FigStalled] = 1e6 * st.StalledS
	} else {
		figs[FigFinished] = float64(st.Finished)
	}
	return figs
}
