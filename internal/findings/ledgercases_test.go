package findings

import (
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// ledgerOf is a time account of mean latency ms whose rows are parts
// measured at their ms per request (the rest unexplained).
func ledgerOf(latency float64, rows ...runfmt.LedgerRow) *runfmt.Ledger {
	t := &runfmt.TimeAccount{LatencyMs: latency, Requests: 1000, Rows: rows}
	sum := 0.0
	for _, r := range rows {
		ms, _ := r.Ms()
		sum += ms
	}
	t.UnexplainedMs = max(0, latency-sum)
	return &runfmt.Ledger{Time: t}
}

func row(p runfmt.LedgerPart, ms float64) runfmt.LedgerRow {
	return runfmt.LedgerRow{Part: p, MsPerRequest: &ms}
}

// throttledGoInput is the demo's shape: GOMAXPROCS 2 under a 1-core
// budget, throttled, requests losing 4 ms each to it.
func throttledGoInput(*testing.T) FindingInput {
	return FindingInput{Requests: 1000, Runtime: runfmt.RuntimeGo,
		Target:    &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: 0.97, ThrottledPct: 35, ThrottledSeconds: 0.9, CPUBound: true, CPUMsPerRequest: 2},
		GoRuntime: &runfmt.GoRuntime{GOMAXPROCS: 2, GOMAXPROCSSource: "gctrace"},
		Load:      &runfmt.LoadResult{RPS: 480, Latency: runfmt.Latency{Mean: 10, P99: 40}},
		Ledger:    ledgerOf(10, row(runfmt.PartCPU, 2), row(runfmt.PartRunnable, 3), row(runfmt.PartThrottled, 4))}
}

// throttledPythonInput is four gunicorn workers under a 1-core budget,
// half of the budget used, throttled in bursts.
func throttledPythonInput(*testing.T) FindingInput {
	return FindingInput{Requests: 1000, Runtime: runfmt.RuntimePython,
		Target: &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: 0.6, ThrottledPct: 20, ThrottledSeconds: 0.5, CPUMsPerRequest: 3, ThreadsMax: 5},
		Load:   &runfmt.LoadResult{RPS: 200, Latency: runfmt.Latency{Mean: 12}},
		Ledger: ledgerOf(12, row(runfmt.PartCPU, 3), row(runfmt.PartThrottled, 5))}
}

// queueingInput is a service at 0.97 of its 1-core budget whose requests
// queue behind its own CPU: 10 in flight, 18 of 20 ms waiting.
func queueingInput(*testing.T) FindingInput {
	return FindingInput{Requests: 1000, Runtime: runfmt.RuntimePython,
		Target: &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: 0.97, CPUCoresMax: 1, ThrottledPct: 2, CPUMsPerRequest: 2},
		Load:   &runfmt.LoadResult{RPS: 500, Latency: runfmt.Latency{Mean: 20}},
		Ledger: ledgerOf(20, row(runfmt.PartCPU, 2), row(runfmt.PartAccept, 12), row(runfmt.PartQueue, 4), row(runfmt.PartRunnable, 2))}
}

// downstreamLedgerInput is waitsInput's trace with a ledger whose
// downstream row, the peer's answer time, is 11 of the trace's 12 ms.
func downstreamLedgerInput(t *testing.T) FindingInput {
	in := waitsInput(t)
	d := row(runfmt.PartDownstream, 11)
	d.Peer = &runfmt.LedgerPeer{Address: "127.0.0.1:5432", Name: "postgres", AnswerMs: 11, AnswersPerRequest: 1}
	in.Ledger = ledgerOf(in.Time.TotalMs, d, row(runfmt.PartRunnable, 1))
	return in
}

// TestFindingsClaimTheirRows: each time finding's figure is its ledger
// row's, never more; a downstream wait the peer did not take (it answered
// at once, the rest was the service's own) gives no downstream finding;
// at the budget no finding blames the waiting on I/O.
func TestFindingsClaimTheirRows(t *testing.T) {
	in := downstreamLedgerInput(t)
	d := kindOf(t, Findings(in), runfmt.FindingDownstreamWait)
	if got := d.Figures[runfmt.FigWaitPerRequest]; got != 11000 {
		t.Errorf("downstream wait %v µs; want the ledger's 11 ms row, not the trace's 12 ms", got)
	}
	in.Ledger.Time.Rows[0] = row(runfmt.PartDownstream, 0.01)
	for _, f := range Findings(in) {
		if f.Kind == runfmt.FindingDownstreamWait {
			t.Errorf("downstream finding %q though the peer answered in 0.01 ms", title(f))
		}
	}

	q := queueingInput(t)
	fs := Findings(q)
	c := kindOf(t, fs, runfmt.FindingCPUBound)
	if c.Figures[runfmt.FigPerCore] != 10 || c.Figures[runfmt.FigWaitPerRequest] != 18000 {
		t.Errorf("cpu-bound %v; want 10 requests per core, 18 ms queued (accept, queue, runnable)", c.Figures)
	}
	for _, f := range fs {
		if f.Kind == runfmt.FindingOffCPU {
			t.Errorf("off-cpu finding %q at the budget: the queueing is behind the service's CPU", title(f))
		}
	}

	in = contentionInput(t)
	in.Ledger = ledgerOf(20, row(runfmt.PartCPU, 1), row(runfmt.PartRunnable, 3), row(runfmt.PartGenerator, 0))
	ct := kindOf(t, Findings(in), runfmt.FindingCPUContention)
	if ct.Figures[runfmt.FigServiceQueue] != 3000 || ct.Figures[runfmt.FigGeneratorQueue] != 0 || ct.Figures[runfmt.FigWaitPerRequest] != 3000 {
		t.Errorf("cpu-contention %v; want the ledger's 3 ms runnable row and its generator row at 0", ct.Figures)
	}

	g := kindOf(t, Findings(throttledGoInput(t)), runfmt.FindingThrottled)
	if g.Advice != runfmt.AdviceMatchGOMAXPROCS || g.Figures[runfmt.FigWaitPerRequest] != 4000 || g.Figures[runfmt.FigGOMAXPROCS] != 2 {
		t.Errorf("throttled %+v; want 4 ms/request caused by GOMAXPROCS 2, advice GOMAXPROCS=1", g)
	}
	small := throttledGoInput(t)
	small.Ledger = ledgerOf(20, row(runfmt.PartCPU, 2), row(runfmt.PartSyscall, 15), row(runfmt.PartThrottled, 1))
	if s := kindOf(t, Findings(small), runfmt.FindingThrottled); s.Figures[runfmt.FigWaitPerRequest] != 1000 {
		t.Errorf("throttled %v; want its 1 ms row named (35%% of periods throttled) though it is 5%% of the latency", s.Figures)
	}
	p := kindOf(t, Findings(throttledPythonInput(t)), runfmt.FindingThrottled)
	if p.Advice != runfmt.AdviceThreadsToQuota || p.Figures[runfmt.FigWaitPerRequest] != 5000 {
		t.Errorf("throttled %+v; want 5 ms/request caused by busy workers", p)
	}
}

func kindOf(t *testing.T, fs []runfmt.Finding, k runfmt.FindingKind) runfmt.Finding {
	t.Helper()
	for _, f := range fs {
		if f.Kind == k {
			return f
		}
	}
	t.Fatalf("no %s finding in %d findings", k, len(fs))
	return runfmt.Finding{}
}

// nPlusOneInput is a Go service whose requests wait on two peers: an HTTP
// API answering once in 12 ms, and PostgreSQL answering 101 queries in 4 ms
// (the N+1 shape), whose CPU findings name main.listOrders with database
// work under it.
func nPlusOneInput(t *testing.T) FindingInput {
	in := waitsInput(t)
	api := row(runfmt.PartDownstream, 12)
	api.Peer = &runfmt.LedgerPeer{Address: "127.0.0.1:8081", Name: "prices", AnswerMs: 12, AnswersPerRequest: 1}
	db := row(runfmt.PartDownstream, 4)
	cpu := 1.5
	db.Peer = &runfmt.LedgerPeer{Address: "127.0.0.1:5432", PID: 42, Name: "postgres", Database: "postgres", AnswerMs: 0.0396, AnswersPerRequest: 101, CPUMsPerRequest: &cpu}
	in.Ledger = ledgerOf(in.Time.TotalMs, api, db, row(runfmt.PartRunnable, 1))
	return in
}

// TestNPlusOneClaimsTheDatabaseRow: the N+1 finding owns the database's
// row, and the downstream wait keeps the other peer's and no more; below
// ten queries per request no N+1 is said.
func TestNPlusOneClaimsTheDatabaseRow(t *testing.T) {
	fs := Findings(nPlusOneInput(t))
	n := kindOf(t, fs, runfmt.FindingNPlusOne)
	if n.Figures[runfmt.FigQueries] != 101 || n.Figures[runfmt.FigWaitPerRequest] != 4000 || n.Figures[runfmt.FigPeerCPU] != 1500 || n.Settings[runfmt.SettingDatabase] != "postgres" {
		t.Errorf("n-plus-one %v %v; want 101 queries, the row's 4 ms, postgres's 1.5 ms of CPU", n.Figures, n.Settings)
	}
	d := kindOf(t, fs, runfmt.FindingDownstreamWait)
	if got := d.Figures[runfmt.FigWaitPerRequest]; got != 12000 || len(d.Evidence.Peers) != 1 || !strings.HasPrefix(d.Evidence.Peers[0], "127.0.0.1:8081") {
		t.Errorf("downstream wait %v µs, peers %q; want the API's 12 ms alone", got, d.Evidence.Peers)
	}
	words := prose.Wording(&n)
	for _, want := range []string{"101 queries/request to postgres", "N+1 shape", "WHERE id IN"} {
		if !strings.Contains(words.Title.Text()+" "+words.Detail.Text(), want) {
			t.Errorf("n-plus-one reads %q / %q; want %q", words.Title.Text(), words.Detail.Text(), want)
		}
	}

	// The loop of queries is named from the profile, even when its CPU is
	// too little for a finding of its own.
	in := nPlusOneInput(t)
	in.CPU = labtest.NewProfile(t, "samples/count", "cpu/nanoseconds").
		Add(labtest.HandlerStack+";main.render", 97, 97e7).
		Add(labtest.HandlerStack+";main.recentOrders;database/sql.(*DB).QueryContext", 3, 3e7).Profile()
	n = kindOf(t, Findings(in), runfmt.FindingNPlusOne)
	if c, ok := n.Culprit(); !ok || c.Function != "main.recentOrders" || n.Figures[runfmt.FigDatabaseShare] != 0.03 {
		t.Errorf("n-plus-one names %+v with database share %v; want main.recentOrders, 3%%", c, n.Figures[runfmt.FigDatabaseShare])
	}

	// A CPU profile without the queries (too few samples): the
	// wall-time profile names the function waiting for their answers,
	// and no CPU share is claimed for it.
	in = nPlusOneInput(t)
	in.CPU = labtest.NewProfile(t, "samples/count", "cpu/nanoseconds").Add(labtest.HandlerStack+";main.render", 97, 97e7).Profile()
	in.Wall = labtest.NewWall(t).Add(labtest.HandlerStack+";main.render", runfmt.WaitCPU, 2e6).
		Add(labtest.HandlerStack+";main.recentOrders;database/sql.(*DB).QueryContext;runtime.selectgo", runfmt.WaitDownstream, 8e6).Profile()
	n = kindOf(t, Findings(in), runfmt.FindingNPlusOne)
	if c, ok := n.Culprit(); !ok || c.Function != "main.recentOrders" {
		t.Errorf("n-plus-one without queries in the CPU profile names %+v; want main.recentOrders from the wall-time profile", c)
	}
	if _, ok := n.Figures[runfmt.FigDatabaseShare]; ok || !strings.Contains(prose.Wording(&n).Detail.Text(), "wait for the answers") {
		t.Errorf("n-plus-one from the wall-time profile: figures %v, detail %q; want no CPU share, the wait named", n.Figures, prose.Wording(&n).Detail.Text())
	}

	in = nPlusOneInput(t)
	in.Ledger.Time.Rows[1].Peer.AnswersPerRequest = 3
	for _, f := range Findings(in) {
		if f.Kind == runfmt.FindingNPlusOne {
			t.Errorf("n-plus-one %q at 3 queries per request", title(f))
		}
	}
}

// TestOverCountedProfileIsUncertain: when the profile's samples stand for
// far more CPU than was measured (a tick sampler on a busy machine), the
// user-function findings say their split is uncertain; near the measured
// CPU they do not.
func TestOverCountedProfileIsUncertain(t *testing.T) {
	for _, c := range []struct {
		profiled float64
		want     bool
	}{{2.1, true}, {1.2, false}} {
		in := budgetInput(t)
		measured, profiled := 2.0, 2.0*c.profiled
		in.Ledger = &runfmt.Ledger{CPU: &runfmt.CPUAccount{MeasuredMs: measured, ProfiledMs: &profiled}}
		f := kindOf(t, Findings(in), runfmt.FindingHotUserFunction)
		detail := prose.Wording(&f).Detail.Text()
		if got := strings.Contains(detail, "Uncertain: the profile's samples stand for"); got != c.want {
			t.Errorf("profile at %.1f× the CPU measured: uncertain %t, want %t: %s", c.profiled, got, c.want, detail)
		}
	}
}
