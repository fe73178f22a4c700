package ledger

import (
	"net/netip"
	"time"

	"perflab/internal/runfmt"
)

// Input is what a run measured, for Build.
type Input struct {
	// Runtime is the service's runtime ("" when unknown).
	Runtime runfmt.Runtime
	// Load is the measured window's load; its latency is what the time
	// account splits.
	Load *runfmt.LoadResult
	// Quality is the machine over the window (the generator's wait).
	Quality *runfmt.Quality
	// Target is the service's CPU, throttling and run-queue wait.
	Target *runfmt.TargetSummary
	// Time is the runtime's own split of a request's time: a Go
	// execution trace's, py-spy's or rbspy's; nil when there is none,
	// and TimeWhy says why.
	Time    *runfmt.TimePerRequest
	TimeWhy string
	// ClientLoopsMs is, with a Go trace, the time per request the
	// goroutines of the service's client connections ran or waited for a
	// P (walltime.Analysis.ClientLoops): the service's own time inside its
	// downstream waits.
	ClientLoopsMs float64
	// SampledSleep is what a wall-clock sampler of every thread (py-spy's
	// idle recording) saw of the service's threads asleep: the kernel
	// times every thread's sleeps, and the sampler tells the request
	// threads' share of them. Nil without one.
	SampledSleep *SampledSleep
	// Kernel is the kernel's timing of the window; nil when there was
	// none, and KernelWhy says why.
	Kernel    *Kernel
	KernelWhy string
	// Peers are the local processes behind the kernel's outbound peers.
	Peers map[netip.AddrPort]Peer
	// CPU is the CPU profile's account.
	CPU CPU
	// Allocators are the user functions that allocate the most bytes per
	// request, most first, from an allocation profile, and AllocBytes
	// all the bytes allocated per request: the gc row's time is charged
	// to them by their bytes. None without an allocation profile.
	Allocators []Allocator
	AllocBytes float64
}

// Allocator is a user function, the bytes it allocates per request (its
// own and those of the code it calls that is not the user's), and the
// call under it that allocates most of them.
type Allocator struct {
	Function, File, Callee string
	BytesPerRequest        float64
}

// SampledSleep is a sampler's time asleep: of the threads serving
// requests, and of every thread it recorded.
type SampledSleep struct {
	Requests, All time.Duration
}

// Stat is a number of intervals and their total length.
type Stat struct {
	Count uint64
	Time  time.Duration
}

// Mean is the mean interval, 0 when there was none.
func (s Stat) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Time / time.Duration(s.Count)
}

// Kernel is the kernel's timing of the service over the window: its
// threads (summed over its processes) and the connections of the load's
// listening ports and of its peers. A ...Why field says why its figures
// were not measured ("" when they were).
type Kernel struct {
	// Ports are the load's listening ports the inbound figures cover;
	// Processes how many processes were measured.
	Ports     []int
	Processes int

	// Requests, Backlog, Unread and Sends are the inbound connections'.
	Requests   uint64
	Backlog    Stat
	BacklogWhy string
	Unread     Stat
	UnreadWhy  string
	Sends      Sends
	StallsWhy  string

	// Outbound is per peer; PeersWhy covers the answers, ReadWhy their
	// waits to be read. OpenWhy says why the connections open when the
	// timing started were not taken up: the answers on those (a pool's
	// or a channel's, opened before) are not counted.
	Outbound map[netip.AddrPort]Outbound
	PeersWhy string
	ReadWhy  string
	OpenWhy  string

	// The threads' time: on a CPU, runnable, and off a CPU by kind.
	OnCPU, Runnable                    Stat
	Sleep, Futex, Disk, NetWait, Other Stat
	SchedWhy                           string

	// Dropped counts the records the kernel lost, per table.
	Dropped map[string]uint64
}

// Sends are the service's sends on the inbound connections.
type Sends struct {
	Conns, NagleConns, NoDelayConns uint64
	Stalls, NoDelayStalls           Stat
}

// Outbound is one peer's answers and their waits to be read.
type Outbound struct {
	Answers, Unread Stat
	// Turns are the answers timed from the first unanswered send; with
	// Overlaps (sends while an answer was awaited) the calls overlap on
	// their connection, and the turns are the time it waited on the
	// peer, a floor of the calls' (ktrace.Outbound). Bursts are the
	// arrivals with no send before them.
	Turns            Stat
	Overlaps, Bursts uint64
}

// unevenShare is the share of sends made while an answer was awaited (or
// of arrivals with no send before them) beyond which a peer's answers
// are no count of calls. A client writing an occasional request in parts
// (a database driver flushing a query's messages in two writes now and
// then: 6% of them) stays below it; calls multiplexed on a connection
// under concurrency (most sends made while another call's answer is
// awaited) and answers read in bursts (several per call) are far above.
const unevenShare = 0.25

// Overlapped says whether o's calls overlapped on their connections
// (HTTP/2, gRPC, pipelining, or requests written in parts).
func (o Outbound) Overlapped() bool {
	return float64(o.Overlaps) > unevenShare*float64(o.Answers.Count)
}

// Counted says whether o's answers are its calls: one call at a time on
// each connection, each request sent and each answer arriving at once.
// Answers arriving in several bursts mix with the sends a client makes
// while reading them (HTTP/2's window updates and pings), each of which
// the kernel would take for a call.
func (o Outbound) Counted() bool {
	return !o.Overlapped() && float64(o.Bursts) <= unevenShare*float64(o.Answers.Count)
}

// uncounted says why o's answers are not counted as calls ("" when they
// are).
func (o Outbound) uncounted() string {
	switch {
	case o.Overlapped():
		return "calls overlapped on its connections (HTTP/2, gRPC, pipelining, or requests written in parts): the kernel sees bytes, not calls"
	case !o.Counted():
		return "its answers arrived in several bursts (large answers, or HTTP/2 with the client's window updates between them): the kernel sees bytes, not calls"
	}
	return ""
}

// Waited is the peer's time: its answers' (from the last send), or, when
// the calls overlapped, the time the connections waited on it.
func (o Outbound) Waited() Stat {
	if o.Overlapped() {
		return o.Turns
	}
	return o.Answers
}

// Peer is the local process listening at a peer's address.
type Peer struct {
	PID  int
	Name string
	// CPU is its CPU time over the window, when CPUWhy is "".
	CPU    time.Duration
	CPUWhy string
	// CPUShare, when not 0, is the part of the window CPU was read over:
	// the peer was first connected during the window.
	CPUShare float64
}

// CPU is the CPU profile's account of the window.
type CPU struct {
	// Profiled is the CPU the profile's samples stand for; 0 with
	// NotProfiled saying why.
	Profiled    time.Duration
	NotProfiled string
	// Shares are the profile's samples by owner, as fractions.
	Shares map[runfmt.CPUOwner]float64
	// UnsampledStart is the CPU of workers started during the window
	// before they were sampled (runfmt.Profiling.UnsampledStartCPUSeconds):
	// measured, in no sample, owned apart.
	UnsampledStart time.Duration
}
