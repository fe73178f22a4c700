package ktrace

import (
	"net/netip"
	"time"

	"perflab/internal/runfmt"
)

// Stat is a number of intervals and their total length. Every interval is
// counted when it ends; one still open at a Read is counted at a later one.
type Stat struct {
	Count uint64
	Time  time.Duration
}

// Sub is s minus an earlier reading of the same figure.
func (s Stat) Sub(prev Stat) Stat {
	return Stat{Count: s.Count - prev.Count, Time: s.Time - prev.Time}
}

func (s Stat) add(o Stat) Stat {
	return Stat{Count: s.Count + o.Count, Time: s.Time + o.Time}
}

// Totals are a session's cumulative figures since Start: subtract two
// readings (Sub) for a window. Times are CLOCK_MONOTONIC intervals, summed
// over threads (Procs) or connections (Inbound, Outbound).
type Totals struct {
	// Procs is per measured process (tgid).
	Procs map[int]Proc
	// Inbound is per local port of connections the processes accepted.
	Inbound map[uint16]Inbound
	// Outbound is per peer (address and port) of connections the
	// processes opened; an IPv4 peer reached over an IPv6 socket is
	// unmapped to its IPv4 address. A caller maps a peer on this machine
	// to its process by the listening socket at that address.
	Outbound map[netip.AddrPort]Outbound
	// Unmeasured says, per measure whose kernel programs are not
	// attached, why; its figures above are absent or partial, not 0.
	Unmeasured map[Measure]string
	// Dropped counts what the kernel side could not record.
	Dropped Dropped
	// ProgramCPU is the CPU time the kernel programs ran while the kernel
	// counted it (ProgramCounted of ProgramElapsed): the session's own
	// cost, to set beside the processes' CPU once scaled to the whole
	// window (ProgramEstimate). It leaves out the trampolines' entry and
	// exit (tens of ns per run).
	ProgramCPU time.Duration
	// Programs is ProgramCPU per kernel program, with its runs.
	Programs map[string]Stat
	// ProgramCounted is how long the kernel counted the programs' runs,
	// of ProgramElapsed, the session's time.
	ProgramCounted, ProgramElapsed time.Duration
}

// ProgramEstimate is ProgramCPU and Programs scaled from the time the
// kernel counted them to the whole window, and the share of the window
// counted (0 when nothing was: the estimate is then empty).
func (t Totals) ProgramEstimate() (time.Duration, map[string]Stat, float64) {
	if t.ProgramCounted <= 0 || t.ProgramElapsed <= 0 {
		return 0, nil, 0
	}
	share := min(1, float64(t.ProgramCounted)/float64(t.ProgramElapsed))
	progs := make(map[string]Stat, len(t.Programs))
	for name, st := range t.Programs {
		progs[name] = Stat{Count: uint64(float64(st.Count)/share + 0.5), Time: time.Duration(float64(st.Time) / share)}
	}
	return time.Duration(float64(t.ProgramCPU) / share), progs, share
}

// Proc is one process's scheduler figures: every thread's time is either
// on a CPU, runnable (waiting for one) or off a CPU (asleep), each summed
// over threads. A thread's time between two of its switch-outs is split
// at the second: on a CPU and runnable as the kernel counted them (its
// se.sum_exec_runtime and sched_info.run_delay, the figures of
// /proc/PID/schedstat), and, when it had left asleep, off a CPU: the rest.
// The time before a thread's first switch-out in the session is not
// counted, nor the time since its last one.
type Proc struct {
	// OnCPU is time running; Count is the switch-outs.
	OnCPU Stat
	// Runnable is from becoming runnable (woken, or preempted while
	// running) to the switch-in: waiting for a CPU.
	Runnable Stat
	// OffCPU is from a switch-out asleep to the wake-up, by the state
	// the thread slept in (runfmt's sleep, futex, disk, network, other).
	OffCPU map[runfmt.ThreadState]Stat
	// Waits is OffCPU in detail: per state, system call and stack.
	Waits []Wait
}

// Wait is off-CPU time in one state, in one system call, at one stack.
type Wait struct {
	Kind runfmt.ThreadState
	// Syscall is the call's number (-1: not in a call), Name its name
	// ("syscall N" when perflab does not name it, "" when none).
	Syscall int
	Name    string
	// Stack is the user stack's id in the session's stack table, -1
	// without stacks.
	Stack int32
	Stat
}

// Sends are the figures of the service's sends on a set of connections.
type Sends struct {
	// Conns is the connections seen: established or opened during the
	// session, or open when it started (or their process was added).
	Conns uint64
	// NagleConns and NoDelayConns split the connections that sent by
	// their setting at their first send: Nagle's algorithm on, or
	// TCP_NODELAY.
	NagleConns, NoDelayConns uint64
	// Stalls is, on connections with Nagle on, from the return of a send
	// that left bytes untransmitted in the kernel (held back: Nagle
	// waiting for the peer's ACK, a full congestion or receive window) to
	// the transmission of the last byte held; sends while held extend it.
	Stalls Stat
	// NoDelayStalls is the same on connections with TCP_NODELAY: held by
	// the windows, not by Nagle.
	NoDelayStalls Stat
}

// Inbound is the figures of connections accepted on one port.
type Inbound struct {
	Sends
	// Requests counts the requests: first bytes arriving on a connection,
	// or after the service last sent on it (its response).
	Requests uint64
	// Unread is from a request's first bytes arriving to the service's
	// first read that returns data: waiting to be read (a worker pool's
	// queue, a busy event loop, the wake-up and run queue).
	Unread Stat
	// Backlog is from the handshake's end to accept() returning the
	// connection: waiting to be accepted (with Config.AcceptBacklog). A
	// request that arrived before accept() waits to be read (Unread)
	// from accept() on: the two do not overlap.
	Backlog Stat
}

// Outbound is the figures of connections opened to one peer.
//
// One call at a time on a connection (HTTP/1.1, most database clients),
// each request written at once: an answer is a call, timed from its
// request. Calls overlapping on one connection (HTTP/2, gRPC,
// pipelining) have no boundaries the kernel can see: Overlaps says so,
// Answers then counts the peer's turns (something sent, nothing back
// yet), not calls, and Turns is a floor of their time: the time the
// connection waited on the peer.
type Outbound struct {
	Sends
	// Answers is from the service's last send (its transmission, when
	// it left no bytes behind) to the first bytes arriving after it: the
	// peer's time to answer (with the network's round trip), one per
	// answer.
	Answers Stat
	// Turns is the same answers timed from the first send after the
	// bytes before arrived: with calls overlapping, the time the
	// connection had a call at the peer and no answer yet.
	Turns Stat
	// Overlaps counts the sends made while an answer was awaited: calls
	// overlapping on the connection, or requests written in parts.
	Overlaps uint64
	// Bursts counts the arrivals with no send since the bytes before:
	// more of an answer, answers of overlapping calls, or the peer's own
	// messages (HTTP/2 pings and window updates).
	Bursts uint64
	// Unread is from bytes arriving (an answer's first, or a burst's) to
	// the service's first read that returns data: the service's own
	// delay (its run queue, its event loop, its runtime), not the peer's.
	Unread Stat
}

// Dropped counts, per kernel map, the records lost because the map was
// full (or, for Recursion, runs the kernel skipped). All 0 means nothing
// was lost.
type Dropped struct {
	// Targets: forked processes not followed (a pid beyond the kernel's
	// pid_max when the session started).
	Targets uint64
	// Threads: threads whose state could not be kept.
	Threads uint64
	// Conns: connections whose state could not be kept.
	Conns uint64
	// Procs: processes whose scheduler totals were full (4096).
	Procs uint64
	// OffCPU: off-CPU intervals lost to a full wait table (16384 keys).
	OffCPU uint64
	// Flows: connections whose figures could not be kept: more than
	// 4096 ports and peers.
	Flows uint64
	// Stacks: stacks not recorded (table of 8192 full, or unreadable).
	Stacks uint64
	// Pending: connections not followed from the handshake to accept()
	// (16384 between the two at once).
	Pending uint64
	// Recursion: program runs the kernel skipped because another
	// program was running on that CPU.
	Recursion uint64
}

// Total is the sum of all drops.
func (d Dropped) Total() uint64 {
	return d.Targets + d.Threads + d.Conns + d.Procs + d.OffCPU + d.Flows + d.Stacks + d.Pending + d.Recursion
}

// Mean is the mean interval, 0 when there was none.
func (s Stat) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Time / time.Duration(s.Count)
}
