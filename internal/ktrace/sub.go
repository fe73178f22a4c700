package ktrace

import (
	"maps"
	"net/netip"

	"perflab/internal/runfmt"
)

// Sub is the window between an earlier reading prev and t: every figure
// minus its value in prev (0 where prev had none). Unmeasured is t's.
func (t Totals) Sub(prev Totals) Totals {
	w := Totals{
		Procs:          make(map[int]Proc, len(t.Procs)),
		Inbound:        make(map[uint16]Inbound, len(t.Inbound)),
		Outbound:       make(map[netip.AddrPort]Outbound, len(t.Outbound)),
		Unmeasured:     maps.Clone(t.Unmeasured),
		Dropped:        t.Dropped.sub(prev.Dropped),
		ProgramCPU:     t.ProgramCPU - prev.ProgramCPU,
		ProgramCounted: t.ProgramCounted - prev.ProgramCounted,
		ProgramElapsed: t.ProgramElapsed - prev.ProgramElapsed,
		Programs:       make(map[string]Stat, len(t.Programs)),
	}
	for pid, p := range t.Procs {
		w.Procs[pid] = p.sub(prev.Procs[pid])
	}
	for port, in := range t.Inbound {
		w.Inbound[port] = in.sub(prev.Inbound[port])
	}
	for peer, out := range t.Outbound {
		w.Outbound[peer] = out.sub(prev.Outbound[peer])
	}
	for name, s := range t.Programs {
		w.Programs[name] = s.Sub(prev.Programs[name])
	}
	return w
}

func (p Proc) sub(prev Proc) Proc {
	w := Proc{
		OnCPU:    p.OnCPU.Sub(prev.OnCPU),
		Runnable: p.Runnable.Sub(prev.Runnable),
		OffCPU:   make(map[runfmt.ThreadState]Stat, len(p.OffCPU)),
	}
	for k, s := range p.OffCPU {
		w.OffCPU[k] = s.Sub(prev.OffCPU[k])
	}
	type key struct {
		kind    runfmt.ThreadState
		syscall int
		stack   int32
	}
	before := make(map[key]Stat, len(prev.Waits))
	for _, x := range prev.Waits {
		before[key{x.Kind, x.Syscall, x.Stack}] = x.Stat
	}
	for _, x := range p.Waits {
		x.Stat = x.Stat.Sub(before[key{x.Kind, x.Syscall, x.Stack}])
		if x.Count > 0 {
			w.Waits = append(w.Waits, x)
		}
	}
	return w
}

func (s Sends) sub(prev Sends) Sends {
	return Sends{
		Conns:         s.Conns - prev.Conns,
		NagleConns:    s.NagleConns - prev.NagleConns,
		NoDelayConns:  s.NoDelayConns - prev.NoDelayConns,
		Stalls:        s.Stalls.Sub(prev.Stalls),
		NoDelayStalls: s.NoDelayStalls.Sub(prev.NoDelayStalls),
	}
}

func (in Inbound) sub(prev Inbound) Inbound {
	return Inbound{
		Sends:    in.Sends.sub(prev.Sends),
		Requests: in.Requests - prev.Requests,
		Unread:   in.Unread.Sub(prev.Unread),
		Backlog:  in.Backlog.Sub(prev.Backlog),
	}
}

func (out Outbound) sub(prev Outbound) Outbound {
	return Outbound{
		Sends:    out.Sends.sub(prev.Sends),
		Answers:  out.Answers.Sub(prev.Answers),
		Turns:    out.Turns.Sub(prev.Turns),
		Overlaps: out.Overlaps - prev.Overlaps,
		Bursts:   out.Bursts - prev.Bursts,
		Unread:   out.Unread.Sub(prev.Unread),
	}
}

func (d Dropped) sub(prev Dropped) Dropped {
	return Dropped{
		Targets:   d.Targets - prev.Targets,
		Threads:   d.Threads - prev.Threads,
		Conns:     d.Conns - prev.Conns,
		Procs:     d.Procs - prev.Procs,
		OffCPU:    d.OffCPU - prev.OffCPU,
		Flows:     d.Flows - prev.Flows,
		Stacks:    d.Stacks - prev.Stacks,
		Pending:   d.Pending - prev.Pending,
		Recursion: d.Recursion - prev.Recursion,
	}
}
