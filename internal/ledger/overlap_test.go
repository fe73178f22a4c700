package ledger

import (
	"net/netip"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// A Python service whose calls overlap on one HTTP/2 connection to a
// local peer (8 in flight, 30 ms each): the kernel timed 0.2 turns per
// request of 10 ms each from the last send, 12 ms from the first, with a
// send while an answer was awaited for most calls. The row holds the time
// the connection waited on the peer, a floor, and says so; no answer
// count is given for the calls.
func TestOverlappedCallsNoTrace(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(40), Target: target(2, true, 0, 1),
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 0.2),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.2, 10), Turns: stat(0.2, 12),
				Overlaps: uint64(0.8 * n), Unread: stat(0.4, 0.3)}},
			Runnable: stat(1, 0.1)},
		TimeWhy: "py-spy's idle stacks show no thread serving a request",
		Peers:   map[netip.AddrPort]Peer{cache: {PID: 42, Name: "cache", CPU: per(0.5)}},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 0.2*12, 1e-6)
	r := l.Time.Row(runfmt.PartDownstream)
	p := r.Peer
	if p == nil || p.AnswersPerRequest != 0 || p.AnswerMs != 0 || !strings.Contains(p.AnswersNotCounted, "overlapped") {
		t.Fatalf("peer %+v; want no answer count, and why", p)
	}
	if p.CPUMsPerRequest == nil || *p.CPUMsPerRequest != 0.5 {
		t.Errorf("peer CPU %v; want 0.5 ms per request", p.CPUMsPerRequest)
	}
	if !strings.Contains(r.Note, "a floor of the calls' own") {
		t.Errorf("downstream note %q; want the floor said", r.Note)
	}
}

// One call at a time, a few requests written in two parts: the answers
// are the calls, counted and timed from the last send.
func TestSequentialCallsCounted(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(45), Target: target(2, true, 0, 1),
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 0.2),
			Outbound: map[netip.AddrPort]Outbound{peer: {Answers: stat(1, 40), Turns: stat(1, 40.1),
				Overlaps: uint64(0.01 * n), Unread: stat(1, 0.3)}},
			Runnable: stat(1, 0.1)},
		TimeWhy: "py-spy's idle stacks show no thread serving a request",
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 40, 1e-6)
	p := l.Time.Row(runfmt.PartDownstream).Peer
	if p == nil || p.AnswersPerRequest != 1 || p.AnswerMs != 40 || p.AnswersNotCounted != "" {
		t.Errorf("peer %+v; want 1 answer per request of 40 ms", p)
	}
}

// The buggy gRPC API (its Ps busy printing) on its one connection to the
// cache: the connection waited on the cache 0.36 ms per request, its
// answers waited 2.1 ms to be read and its goroutines 7.5 ms for a P. The
// rest of the trace's wait is shared in proportion to those: mostly the
// API's own.
func TestOverlappedCallsGoTrace(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(24), Target: target(1.6, true, 4, 9),
		Time: goTrace(row(runfmt.TimeRunning, 2.9, runfmt.WaitCPU, 2.9), row(runfmt.TimeRunnable, 4.2, runfmt.WaitRunnable, 4.2),
			row(runfmt.TimeNetwork, 14.7, runfmt.WaitDownstream, 14.7)),
		ClientLoopsMs: 7.5,
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.4),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.4, 0.5), Turns: stat(0.4, 0.9),
				Overlaps: uint64(0.6 * n), Unread: stat(0.7, 3)}},
			Runnable: stat(3, 0.3)},
		Peers: map[netip.AddrPort]Peer{cache: {PID: 4242, Name: "grpccache", CPU: per(0.25)}},
	}
	in.Time.Scheduler = &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 100}
	l := Build(in)
	logLedger(t, l)
	turns, reads, loops := 0.4*0.9, 0.7*3, 7.5
	rest := 14.7 - turns - reads - loops
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), turns+rest*turns/(turns+reads+loops), 1e-6)
	if p := l.Time.Row(runfmt.PartDownstream).Peer; p == nil || p.AnswersNotCounted == "" || p.CPUMsPerRequest == nil {
		t.Errorf("peer %+v; want the answers not counted, the cache's CPU per request given", p)
	}
}

// The fixed API and a cache that sleeps 30 ms, 8 calls at a time on one
// gRPC connection, on a machine whose other work holds the CPUs (the
// API's threads ready 73% of their time without one): the connection
// waited on the cache 3.9 ms per request, its reads and loops took 0.3
// ms. The calls' waits beyond those are the cache's in that proportion,
// not the API's for being on a busy machine.
func TestOverlappedSlowPeerBusyHost(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(33), Target: target(0.3, true, 0, 0.5),
		Time: goTrace(row(runfmt.TimeRunning, 0.3), row(runfmt.TimeRunnable, 0.4),
			row(runfmt.TimeNetwork, 32.07, runfmt.WaitDownstream, 32.07)),
		ClientLoopsMs: 0.17,
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.1),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.9, 3.6), Turns: stat(0.9, 3.89/0.9),
				Overlaps: uint64(0.5 * n), Unread: stat(0.9, 0.148/0.9)}},
			OnCPU: stat(1, 0.3), Runnable: stat(1, 0.81)},
	}
	in.Time.Scheduler = &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 6}
	l := Build(in)
	logLedger(t, l)
	rest := 32.07 - 3.89 - 0.148 - 0.17
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 3.89+rest*3.89/(3.89+0.148+0.17), 1e-3)
	if msOf(t, l, runfmt.PartDownstream) < 0.85*30 {
		t.Errorf("downstream %.3f ms; want the cache's 30 ms", msOf(t, l, runfmt.PartDownstream))
	}
}

// One gRPC call at a time with 20-50 KiB answers: the answers arrive in
// bursts, and the client's window updates between them start turns of
// their own (2.9 per call). The time is the peer's, whole; the count is
// not given.
func TestBurstAnswersNotCounted(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(34), Target: target(0.5, true, 0, 0.2),
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.1),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(2.9, 11.4), Turns: stat(2.9, 11.4),
				Bursts: uint64(1.5 * n), Unread: stat(4.4, 0.1)}},
			Runnable: stat(1, 0.05)},
		TimeWhy: "py-spy's idle stacks show no thread serving a request",
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 2.9*11.4, 1e-6)
	r := l.Time.Row(runfmt.PartDownstream)
	if p := r.Peer; p == nil || p.AnswersPerRequest != 0 || !strings.Contains(p.AnswersNotCounted, "bursts") {
		t.Errorf("peer %+v; want no answer count, and why", p)
	}
	if !strings.Contains(r.Note, "several bursts") || strings.Contains(r.Note, "floor") {
		t.Errorf("downstream note %q; want the bursts said, and no floor (one call at a time)", r.Note)
	}
}

// A peer first connected during the window has its CPU read from then
// on: per request over that part of the window, and the row says so.
func TestPeerCPUOverPartOfTheWindow(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(45), Target: target(2, true, 0, 1),
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 0.2),
			Outbound: map[netip.AddrPort]Outbound{peer: {Answers: stat(1, 40), Turns: stat(1, 40), Unread: stat(1, 0.3)}},
			Runnable: stat(1, 0.1)},
		TimeWhy: "py-spy's idle stacks show no thread serving a request",
		Peers:   map[netip.AddrPort]Peer{peer: {PID: 7, Name: "slowpeer", CPU: per(0.1) * 8 / 10, CPUShare: 0.8}},
	}
	l := Build(in)
	logLedger(t, l)
	r := l.Time.Row(runfmt.PartDownstream)
	if c := r.Peer.CPUMsPerRequest; c == nil || *c < 0.1-1e-9 || *c > 0.1+1e-9 {
		t.Errorf("peer CPU %v; want 0.1 ms per request", c)
	}
	if !strings.Contains(r.Note, "last 80% of the window") {
		t.Errorf("downstream note %q; want the part of the window said", r.Note)
	}
}
