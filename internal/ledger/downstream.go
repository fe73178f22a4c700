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
		return []*part{measured(runfmt.PartDownstream, 0, runfmt.LedgerKernel).note("No connection the service opened was answered in the window.")}
	}
	var answers, reads float64 // per request
	for _, a := range peers {
		answers += b.per(k.Outbound[a].Answers)
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
	}
	out := make([]*part, 0, len(peers))
	for _, a := range peers {
		o := k.Outbound[a]
		weight := 1 / float64(len(peers))
		if answers > 0 {
			weight = b.per(o.Answers) / answers
		}
		p := measured(runfmt.PartDownstream, share*weight, runfmt.LedgerKernel)
		if b.goTrace && runtimeMs > 0 {
			p.row.Sources = append(p.row.Sources, runfmt.LedgerGoTrace)
		}
		p.row.Peer = b.peer(a, o)
		p.row.Sites = sites(b.kind(runfmt.TimeNetwork))
		if note != "" {
			p.note("%s", note)
		}
		out = append(out, p)
	}
	return out
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
		if c := cmp.Compare(b.k.Outbound[y].Answers.Time, b.k.Outbound[x].Answers.Time); c != 0 {
			return c
		}
		return x.Compare(y)
	})
	return out
}

// splitGoWait shares a Go trace's downstream wait (ms per request) between
// the peers and the service. The peers' part is the kernel's answer time,
// or, when larger, the trace's wait less the kernel's read delay: calls
// sharing a connection (HTTP/2, gRPC) overlap, and the kernel times one
// answer per burst of bytes after a send, fewer than the calls. Each
// answer's read delay counts once per call; a peer answering more often
// than once a request counts its answers.
func (b *builder) splitGoWait(peers []netip.AddrPort, goWait, answers float64) (float64, string) {
	var readPerCall float64
	for _, a := range peers {
		o := b.k.Outbound[a]
		readPerCall += ms1(o.Unread.Mean()) * math.Max(float64(o.Answers.Count)/b.n, 1)
	}
	less := math.Max(goWait-readPerCall, 0)
	peersMs := math.Max(answers, less)
	b.ownDelay += math.Max(goWait-peersMs, 0)
	note := fmt.Sprintf("The Go trace's downstream wait was %s per request; the kernel timed the peers' answers at %s and the answers' waits to be read at %s a call",
		units.FormatMs(goWait), units.FormatMs(answers), units.FormatMs(readPerCall))
	switch {
	case less > answers*1.25 && less-answers > 0.5:
		note += fmt.Sprintf(": the calls overlap on shared connections (HTTP/2, gRPC), where the kernel times fewer answers than calls, so the peers' part is the trace's wait less the reads, %s.", units.FormatMs(less))
	default:
		note += "."
	}
	if own := goWait - peersMs; own > 0.0005 {
		note += fmt.Sprintf(" The %s left is the service's own delay once the answers arrived (its Ps or threads waiting for a CPU): in runnable and throttled.", units.FormatMs(own))
	}
	return peersMs, note
}

// peer is a downstream row's evidence.
func (b *builder) peer(a netip.AddrPort, o Outbound) *runfmt.LedgerPeer {
	lp := &runfmt.LedgerPeer{Address: a.String(), AnswersPerRequest: float64(o.Answers.Count) / b.n,
		AnswerMs: ms1(o.Answers.Mean()), ReadDelayMs: b.per(o.Unread)}
	p, ok := b.in.Peers[a]
	switch {
	case !ok:
		lp.CPUNotMeasured = "no local process listens at its address"
	case p.CPUWhy != "":
		lp.PID, lp.Name, lp.CPUNotMeasured = p.PID, p.Name, p.CPUWhy
	default:
		cpu := p.CPU.Seconds() * 1000 / b.n
		lp.PID, lp.Name, lp.CPUMsPerRequest = p.PID, p.Name, &cpu
	}
	return lp
}
