package ledger

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// TestLedgerAddsUp: whatever the sources say, alone or together,
// overlapping or short, the rows and unexplained make the latency, no row
// is negative, and a row not measured has no milliseconds and says why.
func TestLedgerAddsUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 19))
	for i := range 5000 {
		in := randomInput(rng)
		l := Build(in)
		if l == nil {
			t.Fatalf("case %d: no ledger for %d requests", i, in.Load.Requests)
		}
		checkAddsUp(t, i, in, l)
	}
}

func checkAddsUp(t *testing.T, i int, in Input, l *runfmt.Ledger) {
	t.Helper()
	a := l.Time
	sum := a.UnexplainedMs
	if a.UnexplainedMs < 0 || math.IsNaN(a.UnexplainedMs) {
		t.Fatalf("case %d: unexplained %v", i, a.UnexplainedMs)
	}
	seen := map[runfmt.LedgerPart]bool{}
	for _, r := range a.Rows {
		seen[r.Part] = true
		ms, ok := r.Ms()
		switch {
		case !ok && r.NotMeasured == "":
			t.Fatalf("case %d: %s not measured without a reason", i, r.Part)
		case !ok:
			continue
		case r.NotMeasured != "":
			t.Fatalf("case %d: %s measured (%v) with a reason not to be: %s", i, r.Part, ms, r.NotMeasured)
		case ms < 0 || math.IsNaN(ms) || math.IsInf(ms, 0):
			t.Fatalf("case %d: %s is %v ms", i, r.Part, ms)
		case len(r.Sources) == 0:
			t.Fatalf("case %d: %s measured from no source", i, r.Part)
		}
		sum += ms
	}
	if math.Abs(sum-a.LatencyMs) > 1e-9*math.Max(1, a.LatencyMs) {
		t.Fatalf("case %d: rows and unexplained make %v ms; the latency is %v\n%+v", i, sum, a.LatencyMs, a.Rows)
	}
	for _, p := range runfmt.LedgerParts.List() {
		if p != runfmt.PartUnexplained && !seen[p] {
			t.Fatalf("case %d: no %s row", i, p)
		}
	}
	if want := 100 * (a.LatencyMs - a.UnexplainedMs) / a.LatencyMs; math.Abs(a.ExplainedPct-want) > 1e-9 {
		t.Fatalf("case %d: explained %v%%; want %v%%", i, a.ExplainedPct, want)
	}
	if c := l.CPU; c != nil {
		var owned float64
		for _, o := range c.Owners {
			if o.MsPerRequest < 0 {
				t.Fatalf("case %d: cpu owner %s is %v ms", i, o.Owner, o.MsPerRequest)
			}
			owned += o.MsPerRequest
		}
		if c.UnsampledStartMs < 0 || c.UnexplainedMs < 0 || math.Abs(c.UnsampledStartMs+owned+c.UnexplainedMs-c.MeasuredMs) > 1e-9*math.Max(1, c.MeasuredMs) {
			t.Fatalf("case %d: cpu start-up %v + owners %v + unexplained %v ≠ measured %v", i, c.UnsampledStartMs, owned, c.UnexplainedMs, c.MeasuredMs)
		}
	}
}

// randomInput draws a run: any source may be missing, and the figures
// range from nothing to several times the latency.
func randomInput(rng *rand.Rand) Input {
	requests := int64(1 + rng.IntN(100000))
	lat := 0.01 + rng.Float64()*300
	ms := func() float64 {
		if rng.IntN(4) == 0 {
			return 0
		}
		return rng.Float64() * lat * 1.5
	}
	window := time.Duration(requests) * time.Millisecond
	tot := func(m float64) time.Duration { return time.Duration(m * float64(requests) * float64(time.Millisecond)) }
	st := func() Stat {
		c := uint64(rng.IntN(int(2*requests) + 1))
		return Stat{Count: c, Time: tot(ms())}
	}
	rts := runfmt.Runtimes.List()
	in := Input{Runtime: rts[rng.IntN(len(rts))],
		Load: &runfmt.LoadResult{Model: []string{"closed", "open"}[rng.IntN(2)], Requests: requests, DurationS: window.Seconds(),
			Latency: runfmt.Latency{Mean: lat, P99: lat * 2}}}
	if in.Load.Model == "open" {
		in.Load.Open = &runfmt.OpenStats{SendLagMS: runfmt.Latency{Mean: ms() / 10}}
	}
	if rng.IntN(2) == 0 {
		in.Load.Phases = map[string]runfmt.Latency{"body": {Mean: ms()}}
	}
	if rng.IntN(3) > 0 {
		in.Quality = &runfmt.Quality{PerflabWaitMsPerRequest: ms() / 5}
	}
	if rng.IntN(4) > 0 {
		cpu := ms()
		src := []string{"cgroup-v1", "cgroup-v2", "proc"}[rng.IntN(3)]
		in.Target = &runfmt.TargetSummary{CPUMsPerRequest: cpu, CPUSeconds: cpu * float64(requests) / 1000, Source: src,
			ThrottledSeconds: tot(ms()).Seconds() * float64(rng.IntN(2)), RunqueueWaitSeconds: tot(ms()).Seconds()}
	}
	if rng.IntN(3) > 0 {
		in.Time = randomSplit(rng, ms)
		if rng.IntN(2) == 0 {
			in.SampledSleep = &SampledSleep{Requests: tot(ms()), All: tot(ms())}
		}
	} else {
		in.TimeWhy = "no execution trace (--no-trace)"
	}
	if rng.IntN(4) > 0 {
		in.Kernel = randomKernel(rng, st)
		in.Peers = map[netip.AddrPort]Peer{}
		for a := range in.Kernel.Outbound {
			if rng.IntN(2) == 0 {
				in.Peers[a] = Peer{PID: 1 + rng.IntN(1000), Name: "peer", CPU: tot(ms() / 10)}
			}
		}
	} else {
		in.KernelWhy = "not root"
	}
	if rng.IntN(3) > 0 {
		u := rng.Float64()
		in.CPU = CPU{Profiled: tot(ms()), Shares: map[runfmt.CPUOwner]float64{runfmt.OwnerUser: u, runfmt.OwnerRuntime: 1 - u}}
		if rng.IntN(2) == 0 { // workers started in the window, before they were sampled
			in.CPU.UnsampledStart = tot(ms())
		}
	}
	return in
}

func randomSplit(rng *rand.Rand, ms func() float64) *runfmt.TimePerRequest {
	src := []runfmt.TimeSource{runfmt.TimeSourceGoTrace, runfmt.TimeSourcePySpy, runfmt.TimeSourceRbSpy, runfmt.TimeSourcePerfSched}[rng.IntN(4)]
	t := &runfmt.TimePerRequest{Source: src, Requests: int64(rng.IntN(1000))}
	for _, k := range runfmt.TimeKinds.List() {
		if rng.IntN(3) == 0 {
			continue
		}
		r := runfmt.TimeRow{Kind: k, MsPerRequest: ms()}
		if rng.IntN(2) == 0 {
			ws := runfmt.Waits.List()
			r.Waits = map[runfmt.Wait]float64{ws[rng.IntN(len(ws))]: r.MsPerRequest * rng.Float64(), ws[rng.IntN(len(ws))]: r.MsPerRequest * rng.Float64()}
		}
		t.Kinds = append(t.Kinds, r)
	}
	return t
}

func randomKernel(rng *rand.Rand, st func() Stat) *Kernel {
	why := func() string {
		if rng.IntN(5) == 0 {
			return "not supported by this kernel"
		}
		return ""
	}
	k := &Kernel{Ports: []int{8080}, Requests: uint64(rng.IntN(1000)), Backlog: st(), BacklogWhy: why(), Unread: st(), UnreadWhy: why(),
		Sends: Sends{Conns: 4, NagleConns: uint64(rng.IntN(5)), Stalls: st(), NoDelayStalls: st()}, StallsWhy: why(),
		Outbound: map[netip.AddrPort]Outbound{}, PeersWhy: why(), ReadWhy: why(), OpenWhy: why(),
		OnCPU: st(), Runnable: st(), Sleep: st(), Futex: st(), Disk: st(), NetWait: st(), Other: st(), SchedWhy: why()}
	for i := range rng.IntN(4) {
		k.Outbound[netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(9000+i))] = Outbound{Answers: st(), Unread: st()}
	}
	if rng.IntN(4) == 0 {
		k.Dropped = map[string]uint64{"threads": uint64(rng.IntN(10))}
	}
	return k
}
