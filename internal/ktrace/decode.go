package ktrace

import (
	"net/netip"
	"time"

	"perflab/internal/runfmt"
)

// The kernel maps' layouts, as declared in bpf/ktrace.bpf.c (a test checks
// their sizes against the object's). Per-CPU maps give one value per CPU,
// summed here.
type (
	// kProc is struct proc: a process's scheduler totals.
	kProc struct{ OncpuNs, OncpuN, RunqNs, RunqN uint64 }
	// kOffKey is struct offkey: process, call, stack and sleep class.
	kOffKey struct {
		Tgid    uint32
		Nr      int32
		StackID int32
		Class   uint32
	}
	// kWaitStat is struct waitstat: off-CPU time and intervals.
	kWaitStat struct{ Ns, N uint64 }
	// kFlowKey is struct flowkey: inbound by local port, outbound by peer.
	kFlowKey struct {
		Dir    uint8
		Pad    uint8
		Family uint16
		Port   uint16
		Pad2   uint16
		Addr   [16]byte
	}
	// kFlow is struct flow: a flow key's connection totals.
	kFlow struct {
		Conns, ConnsNagle, ConnsNodelay, Exchanges, PeerNs uint64
		TurnNs, Overlaps, Bursts                           uint64
		UnreadNs, UnreadN, BacklogNs, BacklogN             uint64
		StallNs, StallN, StallNdNs, StallNdN               uint64
	}
)

// Flow directions and address families of kFlowKey.
const (
	dirInbound  = 1
	dirOutbound = 2
	afInet      = 2
	afInet6     = 10
)

// Indexes of the drops array (DROP_* in bpf/ktrace.bpf.c).
const (
	dropTargets = iota
	dropThreads
	dropConns
	dropProcs
	dropOffCPU
	dropFlows
	dropStacks
	dropPending
	nDrops
)

func stat(ns, n uint64) Stat {
	return Stat{Count: n, Time: time.Duration(ns)}
}

func newTotals() Totals {
	return Totals{
		Procs:      map[int]Proc{},
		Inbound:    map[uint16]Inbound{},
		Outbound:   map[netip.AddrPort]Outbound{},
		Unmeasured: map[Measure]string{},
		Programs:   map[string]Stat{},
	}
}

// addProc records a process's per-CPU scheduler totals.
func (t *Totals) addProc(tgid uint32, perCPU []kProc) {
	p := t.proc(int(tgid))
	for _, v := range perCPU {
		p.OnCPU = p.OnCPU.add(stat(v.OncpuNs, v.OncpuN))
		p.Runnable = p.Runnable.add(stat(v.RunqNs, v.RunqN))
	}
	t.Procs[int(tgid)] = p
}

// addWait records one off-CPU key's per-CPU totals under its state.
func (t *Totals) addWait(k kOffKey, perCPU []kWaitStat) {
	var s Stat
	for _, v := range perCPU {
		s = s.add(stat(v.Ns, v.N))
	}
	kind, name := classify(k.Class, k.Nr)
	nr := int(k.Nr)
	if nr < 0 {
		nr = -1
	}
	p := t.proc(int(k.Tgid))
	p.OffCPU[kind] = p.OffCPU[kind].add(s)
	p.Waits = append(p.Waits, Wait{Kind: kind, Syscall: nr, Name: name, Stack: k.StackID, Stat: s})
	t.Procs[int(k.Tgid)] = p
}

func (t *Totals) proc(tgid int) Proc {
	p, ok := t.Procs[tgid]
	if !ok {
		p.OffCPU = map[runfmt.ThreadState]Stat{}
	}
	return p
}

// addFlow records one flow key's per-CPU connection totals.
func (t *Totals) addFlow(k kFlowKey, perCPU []kFlow) {
	var f kFlow
	for _, v := range perCPU {
		f = f.plus(v)
	}
	sends := Sends{
		Conns:         f.Conns,
		NagleConns:    f.ConnsNagle,
		NoDelayConns:  f.ConnsNodelay,
		Stalls:        stat(f.StallNs, f.StallN),
		NoDelayStalls: stat(f.StallNdNs, f.StallNdN),
	}
	switch k.Dir {
	case dirInbound:
		t.Inbound[k.Port] = Inbound{
			Sends:    sends,
			Requests: f.Exchanges,
			Unread:   stat(f.UnreadNs, f.UnreadN),
			Backlog:  stat(f.BacklogNs, f.BacklogN),
		}
	case dirOutbound:
		t.Outbound[k.peer()] = Outbound{
			Sends:    sends,
			Answers:  stat(f.PeerNs, f.Exchanges),
			Turns:    stat(f.TurnNs, f.Exchanges),
			Overlaps: f.Overlaps,
			Bursts:   f.Bursts,
			Unread:   stat(f.UnreadNs, f.UnreadN),
		}
	}
}

func (f kFlow) plus(v kFlow) kFlow {
	return kFlow{
		Conns: f.Conns + v.Conns, ConnsNagle: f.ConnsNagle + v.ConnsNagle, ConnsNodelay: f.ConnsNodelay + v.ConnsNodelay,
		Exchanges: f.Exchanges + v.Exchanges, PeerNs: f.PeerNs + v.PeerNs,
		TurnNs: f.TurnNs + v.TurnNs, Overlaps: f.Overlaps + v.Overlaps, Bursts: f.Bursts + v.Bursts,
		UnreadNs: f.UnreadNs + v.UnreadNs, UnreadN: f.UnreadN + v.UnreadN,
		BacklogNs: f.BacklogNs + v.BacklogNs, BacklogN: f.BacklogN + v.BacklogN,
		StallNs: f.StallNs + v.StallNs, StallN: f.StallN + v.StallN,
		StallNdNs: f.StallNdNs + v.StallNdNs, StallNdN: f.StallNdN + v.StallNdN,
	}
}

// peer is an outbound key's address and port; an IPv4 address in an IPv6
// socket (::ffff:a.b.c.d) is unmapped.
func (k kFlowKey) peer() netip.AddrPort {
	var addr netip.Addr
	switch k.Family {
	case afInet:
		addr = netip.AddrFrom4([4]byte(k.Addr[:4]))
	case afInet6:
		addr = netip.AddrFrom16(k.Addr).Unmap()
	}
	return netip.AddrPortFrom(addr, k.Port)
}

// setDrops records the drops array (summed over CPUs, by index).
func (t *Totals) setDrops(byIndex [nDrops]uint64) {
	t.Dropped = Dropped{
		Targets:   byIndex[dropTargets],
		Threads:   byIndex[dropThreads],
		Conns:     byIndex[dropConns],
		Procs:     byIndex[dropProcs],
		OffCPU:    byIndex[dropOffCPU],
		Flows:     byIndex[dropFlows],
		Stacks:    byIndex[dropStacks],
		Pending:   byIndex[dropPending],
		Recursion: t.Dropped.Recursion,
	}
}
