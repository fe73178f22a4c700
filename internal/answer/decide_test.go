package answer

import (
	"math"
	"slices"
	"testing"

	"perflab/internal/runfmt"
)

// ms is a measured time account row's milliseconds.
func ms(v float64) *float64 { return &v }

// serviceRun is a run of a service with cores used of a budget, a mean
// latency split into rows, and findings.
func serviceRun(cores, budget, latencyMs, cpuMs float64, rows map[runfmt.LedgerPart]float64, fs ...runfmt.Finding) *runfmt.Run {
	r := &runfmt.Run{
		Load:     &runfmt.LoadResult{Requests: 1000, RPS: 100, Latency: runfmt.Latency{Mean: latencyMs}},
		Target:   &runfmt.TargetSummary{CPUCoresMean: cores, CPULimitCores: budget, CPUMsPerRequest: cpuMs, CPUSeconds: 10 * cores},
		Quality:  &runfmt.Quality{Verdict: runfmt.QualityClean, HostCores: 2},
		Profiles: []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, Samples: 5000}},
		Ledger: &runfmt.Ledger{
			CPU:  &runfmt.CPUAccount{MeasuredMs: cpuMs},
			Time: &runfmt.TimeAccount{LatencyMs: latencyMs},
		},
		Findings: fs,
	}
	for _, p := range runfmt.LedgerParts.List() {
		if v, ok := rows[p]; ok {
			r.Ledger.Time.Rows = append(r.Ledger.Time.Rows, runfmt.LedgerRow{Part: p, MsPerRequest: ms(v)})
		}
	}
	return r
}

// cpuFinding is a finding of CPU per request (µs) whose culprit is fn.
func cpuFinding(k runfmt.FindingKind, fn string, us float64) runfmt.Finding {
	return runfmt.Finding{Kind: k, Figures: runfmt.Figures{runfmt.FigCPUPerRequest: us},
		Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: fn}}}}
}

// waitFinding is a finding of time waited per request (µs).
func waitFinding(k runfmt.FindingKind, us float64) runfmt.Finding {
	return runfmt.Finding{Kind: k, Figures: runfmt.Figures{runfmt.FigWaitPerRequest: us}}
}

func kindsOf(fs []runfmt.Finding) []runfmt.FindingKind {
	var out []runfmt.FindingKind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestCPUBudgetRanksCausesBeforeConsequences(t *testing.T) {
	r := serviceRun(0.98, 1, 60, 4, map[runfmt.LedgerPart]float64{
		runfmt.PartCPU: 4, runfmt.PartRunnable: 12, runfmt.PartGC: 26, runfmt.PartLock: 18,
	},
		waitFinding(runfmt.FindingGCPause, 26000),
		waitFinding(runfmt.FindingSyncWait, 18000),
		cpuFinding(runfmt.FindingFormatting, "main.handle", 3600),
		waitFinding(runfmt.FindingSleep, 300),
	)
	Decide(r)
	if got := r.Answer.First(); got.Kind != runfmt.LimitCPUBudget || math.Abs(got.Figures[runfmt.FigMaxRPS]-250) > 1e-9 {
		t.Errorf("limit %+v; want the CPU budget, at most 250 requests/s at 4 ms", got)
	}
	want := []runfmt.FindingKind{runfmt.FindingFormatting, runfmt.FindingSleep, runfmt.FindingGCPause, runfmt.FindingSyncWait}
	if got := kindsOf(r.Findings); !slices.Equal(got, want) {
		t.Fatalf("ranked %v; want %v", got, want)
	}
	f := r.Findings[0]
	if f.Payoff[runfmt.FigCPUPerRequest] != 3600 {
		t.Errorf("payoff %v; want its 3.6 ms of CPU", f.Payoff)
	}
	// 1000 cores·ms/s at 0.4 ms of CPU per request left.
	if got := f.Payoff[runfmt.FigMaxRPS]; math.Abs(got-2500) > 1e-6 {
		t.Errorf("capacity after %v; want 2500 requests/s", got)
	}
	// Its CPU and 90% of the waits the saturated CPU causes (runnable,
	// gc, lock: 56 ms).
	if got, want := f.Payoff[runfmt.FigLatency], 3600+0.9*56000; math.Abs(got-want) > 1e-6 {
		t.Errorf("latency payoff %.1f µs; want %.1f", got, want)
	}
	for _, c := range r.Findings[2:] {
		if c.ConsequenceOf != runfmt.LimitCPUBudget || c.Payoff != nil {
			t.Errorf("%s: consequence of %q, payoff %v; want a consequence of the budget, no payoff of its own", c.Kind, c.ConsequenceOf, c.Payoff)
		}
	}
	if !r.Answer.Certain() {
		t.Errorf("doubts %v; want none", r.Answer.Doubts)
	}
}

func TestDownstreamLimitsAnIdleService(t *testing.T) {
	r := serviceRun(0.1, 1, 45, 0.5, map[runfmt.LedgerPart]float64{
		runfmt.PartCPU: 0.5, runfmt.PartDownstream: 40, runfmt.PartSleep: 4,
	},
		cpuFinding(runfmt.FindingHotUserFunction, "main.render", 400),
		waitFinding(runfmt.FindingSleep, 4000),
		waitFinding(runfmt.FindingDownstreamWait, 40000),
	)
	Decide(r)
	if got := r.Answer.First(); got.Kind != runfmt.LimitDownstream || got.Part != runfmt.PartDownstream {
		t.Errorf("limit %+v; want the downstream", got)
	}
	want := []runfmt.FindingKind{runfmt.FindingDownstreamWait, runfmt.FindingSleep, runfmt.FindingHotUserFunction}
	if got := kindsOf(r.Findings); !slices.Equal(got, want) {
		t.Errorf("ranked %v; want %v", got, want)
	}
	for _, f := range r.Findings {
		if f.ConsequenceOf != "" || f.Payoff[runfmt.FigMaxRPS] != 0 {
			t.Errorf("%s: consequence %q, payoff %v; want no consequence and no capacity (the CPU does not limit)", f.Kind, f.ConsequenceOf, f.Payoff)
		}
	}
}

func TestSecondLimitBesideTheCPU(t *testing.T) {
	r := serviceRun(1, 1, 50, 5, map[runfmt.LedgerPart]float64{
		runfmt.PartCPU: 5, runfmt.PartRunnable: 10, runfmt.PartLock: 10, runfmt.PartDownstream: 25,
	})
	Decide(r)
	got := r.Answer.Limits
	if len(got) != 2 || got[0].Kind != runfmt.LimitCPUBudget || got[1].Kind != runfmt.LimitDownstream || got[1].Share != 0.5 {
		t.Errorf("limits %+v; want the budget, then the downstream at half the latency (the lock, a consequence, is no limit)", got)
	}
}

func TestSingleThreadedRuntimeAtOneCore(t *testing.T) {
	r := serviceRun(0.97, 0, 30, 9.7, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 9.7, runfmt.PartQueue: 20})
	r.Profiling = &runfmt.Profiling{Processes: []runfmt.ProcessProfile{{PID: 7, Runtime: runfmt.RuntimeNode, CPUSeconds: 9.7}}}
	Decide(r)
	got := r.Answer.First()
	if got.Kind != runfmt.LimitCPUThread || got.Figures[runfmt.FigCount] != 1 {
		t.Errorf("limit %+v; want one single-threaded worker's CPU", got)
	}
	// Two Go processes at the same use have a core to spare.
	r.Profiling.Processes[0].Runtime = runfmt.RuntimeGo
	Decide(r)
	if got := r.Answer.First(); got.Kind.CPU() {
		t.Errorf("limit %+v for a Go service at 0.97 of 2 cores; want no CPU limit", got)
	}
}

func TestGCChargedByBytes(t *testing.T) {
	r := serviceRun(0.5, 1, 5, 1, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 1, runfmt.PartGC: 0.2},
		cpuFinding(runfmt.FindingHotUserFunction, "main.split", 300),
		cpuFinding(runfmt.FindingHotUserFunction, "main.errorValue", 400),
		runfmt.Finding{Kind: runfmt.FindingGC, Figures: runfmt.Figures{runfmt.FigCPUPerRequest: 200}},
	)
	r.AllocBytesPerRequest = 64<<10 + 248
	r.Allocs = []runfmt.AllocFunc{
		{Function: "main.split", UserCode: true, BytesPerRequest: 64 << 10},
		{Function: "main.errorValue", UserCode: true, BytesPerRequest: 248},
	}
	Decide(r)
	byKind := map[string]float64{}
	for _, f := range r.Findings {
		c, _ := f.Culprit()
		byKind[string(f.Kind)+" "+c.Function] = f.Payoff[runfmt.FigCPUPerRequest]
	}
	split := 300 + 200*float64(64<<10)/r.AllocBytesPerRequest
	if got := byKind["hot-user-function main.split"]; math.Abs(got-split) > 1e-6 {
		t.Errorf("splitter's payoff %.2f µs; want its CPU and the GC its bytes cause, %.2f", got, split)
	}
	if got := byKind["gc "]; got > 1 {
		t.Errorf("GC finding's payoff %.2f µs; want what no culprit allocates, under 1 µs", got)
	}
	if r.Findings[0].Evidence.Functions[0].Function != "main.split" {
		t.Errorf("first %v; want the splitter, whose fix saves the most CPU", kindsOf(r.Findings))
	}
}

func TestStuckComesFirst(t *testing.T) {
	r := serviceRun(0, 1, 0, 0, nil, cpuFinding(runfmt.FindingHotUserFunction, "main.x", 10), runfmt.Finding{Kind: runfmt.FindingStuck})
	r.Stuck = &runfmt.Stuck{}
	Decide(r)
	if r.Answer.First().Kind != runfmt.LimitStuck || r.Findings[0].Kind != runfmt.FindingStuck {
		t.Errorf("limit %s, findings %v; want stuck first", r.Answer.First().Kind, kindsOf(r.Findings))
	}
}

func TestDoubts(t *testing.T) {
	check := func(name string, r *runfmt.Run, want ...runfmt.DoubtKind) {
		t.Helper()
		Decide(r)
		var got []runfmt.DoubtKind
		for _, d := range r.Answer.Doubts {
			got = append(got, d.Kind)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: doubts %v; want %v", name, got, want)
		}
	}
	close := func(samples int64) *runfmt.Run {
		r := serviceRun(0.3, 1, 5, 1, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 1, runfmt.PartSleep: 4},
			cpuFinding(runfmt.FindingHotUserFunction, "main.a", 450), cpuFinding(runfmt.FindingHotUserFunction, "main.b", 400))
		r.Profiles[0].Samples = samples
		return r
	}
	// Shares 0.45 and 0.40 differ by 0.05; its standard error at n
	// samples is sqrt(0.8475/n): 0.092 at 100, 0.013 at 5000.
	check("100 samples", close(100), runfmt.DoubtFewSamples)
	check("5000 samples", close(5000))
	noisy := close(5000)
	noisy.Quality = &runfmt.Quality{Verdict: runfmt.QualityNoisy, HostCores: 2, OtherCores: 0.9}
	check("noisy", noisy, runfmt.DoubtNoisy)
	budget := serviceRun(1, 1, 10, 10, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 10})
	budget.Quality = noisy.Quality
	check("noisy at its budget", budget)
	noSplit := close(5000)
	noSplit.Ledger.Time = nil
	check("no time account", noSplit, runfmt.DoubtNoTimeSplit)
	over := close(5000)
	over.Profiling = &runfmt.Profiling{Coverage: 3}
	check("over-counted", over, runfmt.DoubtOverCounted)
	unexplained := close(5000)
	unexplained.Ledger.Time.UnexplainedMs = 2
	check("unexplained", unexplained, runfmt.DoubtUnexplained)
}

func TestGeneratorRowIsADoubtNotALimit(t *testing.T) {
	r := serviceRun(0.2, 1, 40, 1, map[runfmt.LedgerPart]float64{
		runfmt.PartCPU: 1, runfmt.PartGenerator: 30, runfmt.PartSleep: 9,
	}, waitFinding(runfmt.FindingSleep, 9000))
	Decide(r)
	if got := r.Answer.First(); got.Kind == runfmt.LimitClient || got.Part == runfmt.PartGenerator {
		t.Errorf("limit %+v; want none of the generator's (its row is a bound)", got)
	}
	if len(r.Answer.Doubts) != 1 || r.Answer.Doubts[0].Kind != runfmt.DoubtClient || r.Answer.Doubts[0].Figures[runfmt.FigShare] != 0.75 {
		t.Errorf("doubts %+v; want the client's, at 75%% of the latency", r.Answer.Doubts)
	}
}

// TestGrowthComesBeforeCPU: a heap that grows without end ranks above a
// function's CPU, though its fix saves no CPU: it will stop the service.
func TestGrowthComesBeforeCPU(t *testing.T) {
	r := serviceRun(0.2, 1, 0.3, 0.05, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 0.05, runfmt.PartSleep: 0.2},
		cpuFinding(runfmt.FindingHotUserFunction, "main.remember", 2.2),
		runfmt.Finding{Kind: runfmt.FindingMemoryGrowth, Figures: runfmt.Figures{runfmt.FigHeapSlope: 17 << 20}})
	Decide(r)
	if got := kindsOf(r.Findings); got[0] != runfmt.FindingMemoryGrowth {
		t.Errorf("ranked %v; want the heap's growth first", got)
	}
}

// TestConstructorBeforeTheWorkOfWhatItBuilds: a gzip writer built per
// request ranks ahead of the repeated work of the writer's own method,
// which costs more only because the object is fresh; repeated work of
// another package keeps its rank.
func TestConstructorBeforeTheWorkOfWhatItBuilds(t *testing.T) {
	ctor := func() runfmt.Finding {
		f := cpuFinding(runfmt.FindingConstructor, "main.(*gzipWriter).Write", 137)
		f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleCallee, Function: "compress/gzip.NewWriter"})
		return f
	}
	repeated := func(fn string) runfmt.Finding {
		f := cpuFinding(runfmt.FindingRepeatedWork, "main.handler.func2", 445)
		f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleCallee, Function: fn})
		return f
	}
	for _, tc := range []struct {
		work string
		want []runfmt.FindingKind
	}{
		{"compress/gzip.(*Writer).Close", []runfmt.FindingKind{runfmt.FindingConstructor, runfmt.FindingRepeatedWork}},
		{"image/png.(*Encoder).Encode", []runfmt.FindingKind{runfmt.FindingRepeatedWork, runfmt.FindingConstructor}},
	} {
		r := serviceRun(0.98, 1, 20, 0.9, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 0.9, runfmt.PartRunnable: 19}, repeated(tc.work), ctor())
		Decide(r)
		if got := kindsOf(r.Findings); !slices.Equal(got, tc.want) {
			t.Errorf("%s repeated: ranked %v; want %v", tc.work, got, tc.want)
		}
	}
}
