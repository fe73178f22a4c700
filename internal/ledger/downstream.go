package ledger

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"slices"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// downstream is one row per peer the kernel timed answers of. With a Go
// trace, the trace's downstream wait (which holds the service's own delay
// once an answer arrived) is shared out: the peers' part, and the
// service's own delay (b.ownDelay, a wait for a CPU or a P). Without a Go
// trace, the answers' waits to be read go to the queue (b.queueOut).
func (b *builder) downstream() []*part {
	runtimeMs, seen := b.runtimeWait(runfmt.TimeNetwork, runfmt.WaitDownstream)
	k := b.k
	if k == nil || k.PeersWhy != "" {
		why := b.kernelWhy(whyOf(k, func(k *Kernel) string { return k.PeersWhy }))
		if seen && (runtimeMs > 0 || b.goTrace) {
			p := measured(runfmt.PartDownstream, runtimeMs, b.runtimeSource())
			p.row.Sites = sites(b.kind(runfmt.TimeNetwork))
			return []*part{p.note("The %s's wait for the peers' answers: without the kernel's answer times (%s), it holds the service's own delay once an answer arrived too.", b.in.Time.Source, why)}
		}
		return []*part{notMeasured(runfmt.PartDownstream, why)}
	}
	peers := b.answered()
	if len(peers) == 0 {
		if b.goTrace && runtimeMs > 0 {
			p := measured(runfmt.PartDownstream, runtimeMs, runfmt.LedgerGoTrace)
			p.row.Sites = sites(b.kind(runfmt.TimeNetwork))
			return []*part{p.note("The Go trace's wait for peers the kernel did not see answer (a Unix socket, UDP, or a connection opened and closed between its readings).")}
		}
		p := measured(runfmt.PartDownstream, 0, runfmt.LedgerKernel).note("No connection the service opened was answered in the window.")
		return []*part{b.unseenOpen(p)}
	}
	var answers, reads float64 // per request
	for _, a := range peers {
		answers += b.per(k.Outbound[a].Waited())
		reads += b.per(k.Outbound[a].Unread)
	}
	share, note := answers, ""
	switch {
	case b.goTrace && runtimeMs > 0:
		share, note = b.splitGoWait(peers, runtimeMs, answers)
	case b.in.Runtime == runfmt.RuntimeGo || b.goTrace:
		b.ownDelay += reads
	default:
		b.queueOut += reads
		for _, a := range peers {
			b.outReads += k.Outbound[a].Unread.Count
		}
	}
	out := make([]*part, 0, len(peers))
	for _, a := range peers {
		o := k.Outbound[a]
		weight := 1 / float64(len(peers))
		if answers > 0 {
			weight = b.per(o.Waited()) / answers
		}
		p := measured(runfmt.PartDownstream, share*weight, runfmt.LedgerKernel)
		if b.goTrace && runtimeMs > 0 {
			p.row.Sources = append(p.row.Sources, runfmt.LedgerGoTrace)
		}
		p.row.Peer = b.peer(a, o)
		p.row.Sites = sites(b.kind(runfmt.TimeNetwork))
		b.unseenOpen(p)
		if note != "" {
			p.note("%s", note)
		}
		if in, ok := b.in.Peers[a]; ok && in.CPUShare > 0 && in.CPUWhy == "" {
			p.note("Its first connection was opened during the window: its CPU is per request over the last %s of the window, read from then on.", pct(in.CPUShare))
		}
		switch {
		case o.Overlapped():
			p.note("Calls overlapped on its connections (HTTP/2, gRPC, pipelining, or requests written in parts: %d sends while an answer was awaited, %d answers): the kernel sees bytes, not calls, so it counts no answers and times the connections' waits on the peer, %s per request, a floor of the calls' own.",
				o.Overlaps, o.Answers.Count, units.FormatMs(b.per(o.Turns)))
		case !o.Counted():
			p.note("Its answers arrived in several bursts (%d with no send before them, %d after one: large answers, or HTTP/2 with the client's window updates between them): the kernel sees bytes, not calls, so it counts no answers; their time, %s per request, is the connections' waits on the peer.",
				o.Bursts, o.Answers.Count, units.FormatMs(b.per(o.Answers)))
		}
		out = append(out, p)
	}
	return out
}

// unseenOpen says on a downstream row what the kernel could not count:
// the answers on connections opened before its timing started (a pool's
// or a channel's, kept alive), when it could not take those up.
func (b *builder) unseenOpen(p *part) *part {
	if b.k.OpenWhy == "" {
		return p
	}
	return p.note("The kernel did not take up the connections open when its timing started (%s): the answers on those the service opened before (a pool's or a channel's, kept alive) are not counted, so the answers per request and this row may be short.", b.k.OpenWhy)
}

// answered lists the peers with answers, most time first.
func (b *builder) answered() []netip.AddrPort {
	var out []netip.AddrPort
	for a, o := range b.k.Outbound {
		if o.Answers.Count > 0 {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(x, y netip.AddrPort) int {
		if c := cmp.Compare(b.k.Outbound[y].Waited().Time, b.k.Outbound[x].Waited().Time); c != 0 {
			return c
		}
		return x.Compare(y)
	})
	return out
}

// splitGoWait shares a Go trace's downstream wait (ms per request) between
// the peers and the service: the peers have at least the kernel's answer
// times, the service at least the kernel's waits to be read and the time
// its client connections' goroutines ran or waited for a P (writing the
// requests, reading the answers and handing them over). The rest is
// either more of the service's own delay or the peers' time on calls that
// overlap on a shared connection (HTTP/2, gRPC). Where the kernel saw
// calls overlap, what it and the trace timed are the connection's, once
// for all the calls waiting through them: the rest is the calls' waits
// beyond that, shared in proportion to what was timed of each side (the
// peers' turns against the reads and the client loops). Otherwise it is
// shared by how busy the service's Ps (or its CPU budget) were, the chance
// a goroutine had to wait for one.
func (b *builder) splitGoWait(peers []netip.AddrPort, goWait, answers float64) (float64, string) {
	var reads, turns float64
	for _, a := range peers {
		o := b.k.Outbound[a]
		reads += b.per(o.Unread)
		if o.Overlapped() {
			turns += b.per(o.Turns)
		}
	}
	if answers >= goWait {
		return answers, fmt.Sprintf("The Go trace's downstream wait was %s per request, no more than the kernel's answer times.", units.FormatMs(goWait))
	}
	loops := math.Min(b.in.ClientLoopsMs, math.Max(goWait-answers-reads, 0))
	rest := math.Max(goWait-answers-reads-loops, 0)
	note := fmt.Sprintf("The Go trace's downstream wait was %s per request: the kernel timed the peers' answers at %s and the answers' waits until the service read them at %s, its client connections' goroutines ran or waited for a P %s (the service's).",
		units.FormatMs(goWait), units.FormatMs(answers), units.FormatMs(reads), units.FormatMs(loops))
	if turns > 0 {
		peerShare := turns / (turns + reads + loops)
		own := math.Min(reads+loops+(1-peerShare)*rest, goWait-answers)
		b.ownDelay += own
		if rest > 0.0005 {
			note += fmt.Sprintf(" Calls overlapped on a connection: those figures are the connection's, once for the calls waiting through them, and the %s left is the calls' waits beyond them, shared in proportion to what was timed of each side (the peers' turns, %s, against the reads and the client loops, %s): %s to the peers, %s to the service's waits for a CPU.",
				units.FormatMs(rest), pct(peerShare), pct(1-peerShare), units.FormatMs(peerShare*rest), units.FormatMs((1-peerShare)*rest))
		}
		return goWait - own, note
	}
	busy, busyHow := b.busy()
	own := math.Min(reads+loops+busy*rest, goWait-answers)
	b.ownDelay += own
	if rest > 0.0005 {
		note += fmt.Sprintf(" The %s left (the service's own delays the trace does not tell apart, or calls overlapping on a shared HTTP/2 or gRPC connection, which the kernel times as one) is shared by %s (%s): %s to the service's waits for a CPU, %s to the peers.",
			units.FormatMs(rest), busyHow, pct(busy), units.FormatMs(busy*rest), units.FormatMs((1-busy)*rest))
	}
	return goWait - own, note
}

// busy is the chance a goroutine woken by an answer had to wait, as a
// share, and what it is: how busy the service's Ps or its CPU budget
// were, whichever is more, and, beyond that, how long the service's
// threads waited for a CPU once ready (the kernel's run queue: on a
// machine whose other work holds the CPUs, a free P's thread waits too).
func (b *builder) busy() (float64, string) {
	busy, how := 0.0, "how busy the service's Ps were"
	if t := b.in.Time; t != nil && t.Scheduler != nil {
		busy = t.Scheduler.PBusyPct / 100
	}
	if t := b.in.Target; t != nil && t.CPULimitCores > 0 && t.CPUCoresMean/t.CPULimitCores > busy {
		busy, how = t.CPUCoresMean/t.CPULimitCores, "how much of its CPU budget the service used"
	}
	busy = math.Min(math.Max(busy, 0), 1)
	if k := b.k; k != nil && k.SchedWhy == "" && k.OnCPU.Time > 0 {
		q := k.Runnable.Time.Seconds() / (k.Runnable.Time + k.OnCPU.Time).Seconds()
		if both := 1 - (1-busy)*(1-q); both > busy+0.005 {
			how = fmt.Sprintf("the chance a woken goroutine waited: %s (%s) or, with one free, how long its threads waited for a CPU (%s of their time ready, the kernel's), together", how, pct(busy), pct(q))
			busy = both
		}
	}
	return busy, how
}

// peer is a downstream row's evidence.
func (b *builder) peer(a netip.AddrPort, o Outbound) *runfmt.LedgerPeer {
	lp := &runfmt.LedgerPeer{Address: a.String(), AnswersPerRequest: float64(o.Answers.Count) / b.n,
		AnswerMs: ms1(o.Answers.Mean()), ReadDelayMs: b.per(o.Unread)}
	if why := o.uncounted(); why != "" {
		lp.AnswersPerRequest, lp.AnswerMs, lp.AnswersNotCounted = 0, 0, why
	}
	p, ok := b.in.Peers[a]
	switch {
	case !ok:
		lp.CPUNotMeasured = "no local process listens at its address"
	case p.CPUWhy != "":
		lp.PID, lp.Name, lp.CPUNotMeasured = p.PID, p.Name, p.CPUWhy
	default:
		cpu := p.CPU.Seconds() * 1000 / b.n
		if p.CPUShare > 0 {
			cpu /= p.CPUShare // the requests of the part read
		}
		lp.PID, lp.Name, lp.CPUMsPerRequest = p.PID, p.Name, &cpu
	}
	lp.Database = databaseOf(lp.Name, a.Port())
	return lp
}
