package runfmt

// Answer is what limits a run's service, decided once from its figures
// (package answer) and read by every page (run.json's "answer"): the
// binding constraint, a second one when two share the blame, and what
// kept the decision from being certain. The findings are stored ranked
// by what fixing each would recover under the first constraint, each
// with its payoff (Finding.Payoff).
type Answer struct {
	// Limits are the binding constraint and, when another holds a notable
	// share too, the second; never empty.
	Limits []Limit `json:"limits"`
	// Doubts say why the answer is not certain; when there are any, no
	// finding is ranked as certain.
	Doubts []Doubt `json:"doubts,omitempty"`
}

// Limit is one constraint of a run, with its evidence.
type Limit struct {
	Kind LimitKind `json:"kind"`
	// Part is the time account's row the limit was read from, for a
	// limit that is a wait (or "none", whose latency is the service's
	// own CPU and waits).
	Part LedgerPart `json:"part,omitempty"`
	// Share is how much of its resource the limit holds: the budget's
	// (or the threads') cores used, for a CPU limit; the mean latency's
	// share, for a wait.
	Share float64 `json:"share"`
	// Figures are its evidence: cores used and allowed, throttling, the
	// capacity the CPU allows (FigMaxRPS), the row's time.
	Figures Figures `json:"figures,omitempty"`
}

// LimitKind is what limits a service: run.json's answer.limits[].kind.
type LimitKind string

// The limits.
const (
	// LimitCPUBudget: the service's CPU budget (the cgroup's quota) is
	// used up or throttles it.
	LimitCPUBudget LimitKind = "cpu-budget"
	// LimitCPUHost: the machine's CPUs are busy (the service's own use
	// of every core it can use, or other processes beside it).
	LimitCPUHost LimitKind = "cpu-host"
	// LimitCPUThread: a single-threaded runtime's one thread per process
	// is busy (node's event loop, a Python or Ruby worker under its
	// interpreter lock), whatever cores the machine has left.
	LimitCPUThread LimitKind = "cpu-thread"
	// LimitDownstream: requests wait for another service's answers.
	LimitDownstream LimitKind = "downstream"
	// LimitLock: requests wait for a lock or another goroutine.
	LimitLock LimitKind = "lock"
	// LimitPool: requests wait for a pool's connection or a semaphore.
	LimitPool LimitKind = "pool"
	// LimitQueue: requests wait to be read or accepted (a worker pool's
	// queue, an accept backlog).
	LimitQueue LimitKind = "queue"
	// LimitNetwork: requests wait on their own connection (Nagle's
	// algorithm and delayed ACKs, a slow client).
	LimitNetwork LimitKind = "network"
	// LimitClient: the load generator itself held the requests back
	// (kept for runs decided when its row could be a limit: its row is a
	// bound, and now a doubt, DoubtClient).
	LimitClient LimitKind = "client"
	// LimitNone: nothing limits the service: it has CPU to spare, and its
	// latency is its own CPU and waits (Part names the largest).
	LimitNone LimitKind = "none"
	// LimitStuck: the service stopped answering.
	LimitStuck LimitKind = "stuck"
	// LimitUnknown: the figures could not decide (see the doubts).
	LimitUnknown LimitKind = "unknown"
)

// LimitKinds lists the limits.
var LimitKinds = newVocabulary("limit",
	LimitCPUBudget, LimitCPUHost, LimitCPUThread, LimitDownstream, LimitLock, LimitPool, LimitQueue,
	LimitNetwork, LimitClient, LimitNone, LimitStuck, LimitUnknown,
)

// UnmarshalText reads a limit's name, refusing one it does not know.
func (k *LimitKind) UnmarshalText(b []byte) error { return LimitKinds.unmarshal(k, b) }

// CPU says the limit is a CPU: the budget's, the host's or a thread's.
func (k LimitKind) CPU() bool {
	return k == LimitCPUBudget || k == LimitCPUHost || k == LimitCPUThread
}

// Doubt is one reason an answer is not certain, with its figures.
type Doubt struct {
	Kind    DoubtKind `json:"kind"`
	Figures Figures   `json:"figures,omitempty"`
}

// DoubtKind is why an answer is not certain: run.json's
// answer.doubts[].kind.
type DoubtKind string

// The doubts.
const (
	// DoubtNoisy: other processes used the machine's CPUs in the window
	// (FigOtherCores of FigHostCores).
	DoubtNoisy DoubtKind = "noisy"
	// DoubtFewSamples: the CPU profile holds too few samples for its
	// ranking to be stable (FigCount samples).
	DoubtFewSamples DoubtKind = "few-samples"
	// DoubtNoProfile: no CPU profile can say where the CPU goes (none
	// taken, not representative, stacks that miss the user's code).
	DoubtNoProfile DoubtKind = "no-profile"
	// DoubtOverCounted: the profile stands for far more CPU than was
	// measured (FigOverCounted): its sampler counted waits as CPU.
	DoubtOverCounted DoubtKind = "over-counted"
	// DoubtNoTimeSplit: no time account: which wait limits the latency
	// is not known.
	DoubtNoTimeSplit DoubtKind = "no-time-split"
	// DoubtNoCPU: the service's CPU was not measured.
	DoubtNoCPU DoubtKind = "no-cpu"
	// DoubtUnexplained: much of the latency is in no part of the time
	// account (FigShare of it).
	DoubtUnexplained DoubtKind = "unexplained"
	// DoubtClient: the load generator's own delay may hold much of the
	// latency (FigShare): its row is a bound, not a measure, so it is no
	// limit, and the other parts' shares may be understated.
	DoubtClient DoubtKind = "client"
)

// DoubtKinds lists the doubts.
var DoubtKinds = newVocabulary("doubt", DoubtNoisy, DoubtFewSamples, DoubtNoProfile, DoubtOverCounted, DoubtNoTimeSplit, DoubtNoCPU, DoubtUnexplained, DoubtClient)

// UnmarshalText reads a doubt's name, refusing one it does not know.
func (k *DoubtKind) UnmarshalText(b []byte) error { return DoubtKinds.unmarshal(k, b) }

// First is the binding constraint; LimitUnknown for a nil answer.
func (a *Answer) First() Limit {
	if a == nil || len(a.Limits) == 0 {
		return Limit{Kind: LimitUnknown}
	}
	return a.Limits[0]
}

// Certain says the answer has no doubt.
func (a *Answer) Certain() bool { return a != nil && len(a.Doubts) == 0 }
