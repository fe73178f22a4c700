package decide

import (
	"maps"
	"net/netip"
	"slices"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/ktrace"
	"perflab/internal/ledger"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// ledger builds the run's request ledger from what the window measured,
// and records the kernel timing's cost beside the profilers'.
func (d *decider) ledger() {
	r := d.run
	in := ledger.Input{Runtime: d.serviceRuntime(), Load: r.Load, Quality: r.Quality, Target: r.Target, Time: r.Time, SampledSleep: d.waits.spySleep}
	if r.Time == nil {
		in.TimeWhy = d.noSplitWhy()
	}
	if d.prof == nil {
		return
	}
	if a := d.waits.trace; a != nil && r.Time != nil && r.Time.Source == runfmt.TimeSourceGoTrace && r.Time.Requests > 0 {
		in.ClientLoopsMs = a.ClientLoops.Seconds() * 1000 / float64(r.Time.Requests)
	}
	k := d.in.Kernel
	w, ok, why := k.Window, k.OK, k.Why
	kt := &runfmt.KernelTiming{}
	if ok {
		in.Kernel = kernelInput(w, k.Ports, k.Backlog)
		in.Peers = map[netip.AddrPort]ledger.Peer{}
		if k.Peers != nil {
			in.Peers = k.Peers(answeredPeers(w))
		}
		kt = d.kernelTiming(w)
	} else {
		in.KernelWhy, kt.Unavailable = why, why
	}
	in.CPU = d.cpuInput()
	in.Allocators, in.AllocBytes = d.allocators()
	l := ledger.Build(in)
	if l == nil {
		return
	}
	l.Kernel = kt
	r.Ledger = l
}

// gcAllocators are the user functions the ledger charges the gc row to.
const gcAllocators = 3

// allocators are the user functions that allocate the most bytes per
// request in the window's allocation profile, and all the bytes
// allocated per request.
func (d *decider) allocators() ([]ledger.Allocator, float64) {
	sites, total := analysis.AllocSites(d.prof.Profile(runfmt.ProfileAllocs), d.run.PerRequestCount(), gcAllocators, d.userCode())
	out := make([]ledger.Allocator, len(sites))
	for i, a := range sites {
		out[i] = ledger.Allocator{Function: a.Function, File: a.File, Callee: a.Callee, BytesPerRequest: a.BytesPerRequest}
	}
	return out, total
}

// noSplitWhy says why the run has no split of a request's time by its
// runtime.
func (d *decider) noSplitWhy() string {
	switch {
	case d.cfg.NoTrace:
		return "no execution trace or idle stacks (--no-trace)"
	case d.prof != nil && d.prof.Chosen() == runfmt.ProfilerPprof:
		return "no usable execution trace (see the warnings)"
	case d.prof != nil && d.prof.Chosen() == runfmt.ProfilerPySpy:
		return "py-spy's idle stacks gave no split (see the warnings)"
	}
	return "no runtime's split of a request's time for this service"
}

// kernelTiming is the session's record in run.json, and its programs'
// CPU beside the profilers'.
func (d *decider) kernelTiming(w ktrace.Totals) *runfmt.KernelTiming {
	cpu, progs, counted := w.ProgramEstimate()
	kt := &runfmt.KernelTiming{Processes: len(w.Procs), Ports: portList(d.in.Kernel.Ports), ProgramCPUSeconds: cpu.Seconds(),
		ProgramCPUCounted: counted, Dropped: droppedTables(w.Dropped)}
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		st := progs[name]
		kt.Programs = append(kt.Programs, runfmt.KernelProgram{Name: name, Runs: st.Count, CPUSeconds: st.Time.Seconds(),
			NsPerRun: float64(st.Mean().Nanoseconds())})
	}
	if len(w.Unmeasured) > 0 {
		kt.Unmeasured = map[string]string{}
		for m, why := range w.Unmeasured {
			kt.Unmeasured[string(m)] = why
		}
	}
	if why := d.in.Kernel.Added; why != "" {
		if kt.Unmeasured == nil {
			kt.Unmeasured = map[string]string{}
		}
		kt.Unmeasured["processes added"] = why
	}
	if t := d.run.Target; t != nil && t.CPUSeconds > 0 {
		kt.Overhead = kt.ProgramCPUSeconds / t.CPUSeconds
	}
	if pr := d.run.Profiling; pr != nil {
		pr.KernelCPUSeconds, pr.KernelOverhead = kt.ProgramCPUSeconds, kt.Overhead
	}
	return kt
}

// cpuInput is the CPU profile's account for the ledger.
func (d *decider) cpuInput() ledger.CPU {
	pr := d.run.Profiling
	cpu := d.prof.Profile(runfmt.ProfileCPU)
	switch {
	case cpu == nil || pr == nil || pr.ProfileCPUSeconds <= 0:
		return ledger.CPU{NotProfiled: "no CPU profile (see the warnings)"}
	}
	// The workers' start-up is measured from their processes: it is kept
	// when the profile is not the verdict.
	start := time.Duration(pr.UnsampledStartCPUSeconds * float64(time.Second))
	if nr := report.NotRepresentativeText(pr); nr != "" {
		return ledger.CPU{NotProfiled: nr, UnsampledStart: start}
	}
	return ledger.CPU{Profiled: time.Duration(pr.ProfileCPUSeconds * float64(time.Second)), Shares: analysis.CPUOwnerShares(cpu, d.userCode()),
		UnsampledStart: start}
}

// answeredPeers are the peers the kernel timed answers of.
func answeredPeers(w ktrace.Totals) []netip.AddrPort {
	var out []netip.AddrPort
	for a, o := range w.Outbound {
		if o.Answers.Count > 0 {
			out = append(out, a)
		}
	}
	return out
}

// kernelInput is the window's kernel figures for the ledger: the load's
// ports' inbound connections, the peers, and the threads of every
// process measured.
func kernelInput(w ktrace.Totals, ports []uint16, backlog bool) *ledger.Kernel {
	k := &ledger.Kernel{Ports: portList(ports), Processes: len(w.Procs), Outbound: map[netip.AddrPort]ledger.Outbound{},
		Dropped: droppedTables(w.Dropped)}
	for _, p := range ports {
		in := w.Inbound[p]
		k.Requests += in.Requests
		k.Backlog = add(k.Backlog, in.Backlog)
		k.Unread = add(k.Unread, in.Unread)
		k.Sends.Conns += in.Conns
		k.Sends.NagleConns += in.NagleConns
		k.Sends.NoDelayConns += in.NoDelayConns
		k.Sends.Stalls = add(k.Sends.Stalls, in.Stalls)
		k.Sends.NoDelayStalls = add(k.Sends.NoDelayStalls, in.NoDelayStalls)
	}
	for a, o := range w.Outbound {
		k.Outbound[a] = ledger.Outbound{Answers: stat(o.Answers), Unread: stat(o.Unread), Turns: stat(o.Turns), Overlaps: o.Overlaps, Bursts: o.Bursts}
	}
	for _, p := range w.Procs {
		k.OnCPU, k.Runnable = add(k.OnCPU, p.OnCPU), add(k.Runnable, p.Runnable)
		k.Sleep = add(k.Sleep, p.OffCPU[runfmt.ThreadSleep])
		k.Futex = add(k.Futex, p.OffCPU[runfmt.ThreadFutex])
		k.Disk = add(k.Disk, p.OffCPU[runfmt.ThreadDisk])
		k.NetWait = add(k.NetWait, p.OffCPU[runfmt.ThreadNetwork])
		k.Other = add(k.Other, p.OffCPU[runfmt.ThreadOther])
	}
	why := func(ms ...ktrace.Measure) string {
		for _, m := range ms {
			if r, ok := w.Unmeasured[m]; ok {
				return string(m) + ": " + r
			}
		}
		return ""
	}
	k.BacklogWhy = why(ktrace.Backlog)
	if !backlog {
		k.BacklogWhy = "the load kept its connections open, so requests rarely wait for accept(), and timing it would slow every system call of the machine; a wait before accept() is in queue"
	}
	k.UnreadWhy, k.StallsWhy = why(ktrace.RequestWait), why(ktrace.SendStalls)
	k.PeersWhy, k.ReadWhy, k.OpenWhy = why(ktrace.PeerTime), why(ktrace.AnswerWait), why(ktrace.OpenConnections)
	k.SchedWhy = why(ktrace.OnCPU, ktrace.Runnable, ktrace.OffCPU)
	if len(ports) == 0 {
		k.BacklogWhy, k.UnreadWhy, k.StallsWhy = "the load's port is unknown", "the load's port is unknown", "the load's port is unknown"
	}
	return k
}

func stat(s ktrace.Stat) ledger.Stat { return ledger.Stat{Count: s.Count, Time: s.Time} }

func add(a ledger.Stat, s ktrace.Stat) ledger.Stat {
	return ledger.Stat{Count: a.Count + s.Count, Time: a.Time + s.Time}
}

// droppedTables names the kernel tables of ktrace.Dropped.
func droppedTables(d ktrace.Dropped) map[string]uint64 {
	if d.Total() == 0 {
		return nil
	}
	out := map[string]uint64{}
	for name, n := range map[string]uint64{"processes not followed": d.Targets, "threads": d.Threads, "connections": d.Conns,
		"processes' totals": d.Procs, "off-CPU waits": d.OffCPU, "ports and peers": d.Flows, "stacks": d.Stacks,
		"connections before accept": d.Pending, "program runs skipped": d.Recursion} {
		if n > 0 {
			out[name] = n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func portList(ports []uint16) []int {
	out := make([]int, len(ports))
	for i, p := range ports {
		out[i] = int(p)
	}
	return out
}
