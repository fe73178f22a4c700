package ledger

import (
	"fmt"
	"math"
	"slices"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// part is a proposed row before the parts claim the latency: its
// milliseconds per request, or why it was not measured.
type part struct {
	row runfmt.LedgerRow
	ms  float64
	ok  bool // measured
	// into, when set, is the row this claim adds to: a part whose
	// sources claim at two priorities.
	into *part
}

func measured(p runfmt.LedgerPart, ms float64, sources ...runfmt.LedgerSource) *part {
	return &part{row: runfmt.LedgerRow{Part: p, Sources: sources}, ms: math.Max(ms, 0), ok: true}
}

func notMeasured(p runfmt.LedgerPart, why string) *part {
	return &part{row: runfmt.LedgerRow{Part: p, NotMeasured: why}}
}

// note adds a sentence to the part's note.
func (p *part) note(format string, args ...any) *part {
	s := fmt.Sprintf(format, args...)
	if p.row.Note != "" {
		s = p.row.Note + " " + s
	}
	p.row.Note = s
	return p
}

// Build returns the run's ledger; nil when the load completed no request
// or measured no latency.
func Build(in Input) *runfmt.Ledger {
	if in.Load == nil || in.Load.Requests <= 0 || in.Load.Latency.Mean <= 0 {
		return nil
	}
	b := newBuilder(in)
	l := &runfmt.Ledger{Time: b.timeAccount(), CPU: cpuAccount(in)}
	l.Notes = b.notes
	return l
}

// builder holds the figures every part reads.
type builder struct {
	in       Input
	n        float64 // requests
	latency  float64 // ms
	k        *Kernel // nil without the kernel's timing
	goTrace  bool
	spy      bool // py-spy's or rbspy's split
	notes    []string
	ownDelay float64 // the service's own delay inside a Go trace's downstream wait
	queueIn  float64 // the kernel's inbound wait to be read, per request
	queueOut float64 // the kernel's answers' waits to be read, per request
	outReads uint64  // the answers whose waits to be read are in queueOut
	// queueCPU is the part of the waits to be read that was the service
	// waiting for a CPU (moved to runnable); goQueue the part of it a Go
	// trace counts as runnable.
	queueCPU, goQueue float64
}

func newBuilder(in Input) *builder {
	b := &builder{in: in, n: float64(in.Load.Requests), latency: in.Load.Latency.Mean, k: in.Kernel}
	if t := in.Time; t != nil && t.Requests > 0 {
		b.goTrace = t.Source == runfmt.TimeSourceGoTrace
		b.spy = t.Source == runfmt.TimeSourcePySpy || t.Source == runfmt.TimeSourceRbSpy
	}
	return b
}

// per is a total time per request, in ms.
func (b *builder) per(s Stat) float64 { return s.Time.Seconds() * 1000 / b.n }

// timeAccount proposes every part, lets them claim the latency in their
// priority, and returns the rows in report order.
func (b *builder) timeAccount() *runfmt.TimeAccount {
	t := &runfmt.TimeAccount{LatencyMs: b.latency, P99Ms: b.in.Load.Latency.P99, Requests: b.in.Load.Requests}
	b.kernelNotes()
	down := b.downstream()
	gen, genWait := b.generator()
	parts := slices.Concat([]*part{gen}, down, []*part{b.network(), b.accept(), b.queue()})
	cpu, beyond := b.cpu()
	parts = append(parts, cpu, b.gc())
	parts = append(parts, b.lock()...)
	sleep, disk, syscall := b.sleep(), b.disk(), b.syscall()
	parts = append(parts, sleep, disk, syscall)
	parts = append(parts, b.waitingForCPU(beyond)...)
	left := b.claim(append(parts, genWait))
	for _, p := range ordered(parts) {
		t.Rows = append(t.Rows, p.row)
	}
	t.UnexplainedMs = left
	t.ExplainedPct = 100 * (b.latency - left) / b.latency
	return t
}

// claim lets the measured parts take the latency in the order given, each
// at most what is left, and returns what is left.
func (b *builder) claim(parts []*part) float64 {
	left := b.latency
	var cut []string
	for _, p := range parts {
		if p == nil || !p.ok {
			continue
		}
		ms := math.Min(p.ms, left)
		row := p
		if p.into != nil {
			row = p.into
		}
		switch {
		case p.into != nil && p.ms-ms > 0.0005:
			row.note("Of that wait, %s fit in the latency the service's parts left.", units.FormatMs(ms))
		case p.ms-ms > 0.0005:
			row.note("Capped at the %s the parts before it left of the latency (%s measured): its sources overlap theirs.",
				units.FormatMs(ms), units.FormatMs(p.ms))
			cut = append(cut, fmt.Sprintf("%s %s of %s", p.row.Part, units.FormatMs(ms), units.FormatMs(p.ms)))
		}
		left -= ms
		if row.row.MsPerRequest != nil {
			ms += *row.row.MsPerRequest
		}
		row.row.MsPerRequest = &ms
	}
	if len(cut) > 0 {
		b.notes = append(b.notes, "The parts measured add up to more than the latency (their sources overlap); each millisecond is owned once, in the ledger's order, and these were cut: "+joinList(cut)+".")
	}
	return math.Max(left, 0)
}

// ordered returns the parts in report order (runfmt.LedgerParts), the
// downstream rows most first.
func ordered(parts []*part) []*part {
	order := runfmt.LedgerParts.List()
	out := slices.Clone(parts)
	slices.SortStableFunc(out, func(a, b *part) int {
		if d := slices.Index(order, a.row.Part) - slices.Index(order, b.row.Part); d != 0 {
			return d
		}
		am, _ := a.row.Ms()
		bm, _ := b.row.Ms()
		switch {
		case am > bm:
			return -1
		case am < bm:
			return 1
		}
		return 0
	})
	return out
}

func joinList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}
