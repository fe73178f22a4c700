package findings

import (
	"encoding/json"
	"flag"
	"slices"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// A findingCase is an input that gives a finding of one kind (or a
// variant of its words).
type findingCase struct {
	name string
	kind runfmt.FindingKind
	in   func(t *testing.T) FindingInput
}

// findingCases give a finding of every kind, from hand-built profiles and
// summaries.
var findingCases = []findingCase{
	{"cpu-bound", runfmt.FindingCPUBound, budgetInput},
	{"gc", runfmt.FindingGC, budgetInput},
	{"formatting", runfmt.FindingFormatting, budgetInput},
	{"hot-user-function", runfmt.FindingHotUserFunction, budgetInput},
	{"encoding", runfmt.FindingEncoding, categoriesInput},
	{"compression", runfmt.FindingCompression, categoriesInput},
	{"regexp", runfmt.FindingRegexp, categoriesInput},
	{"reflection", runfmt.FindingReflection, categoriesInput},
	{"repeated-work", runfmt.FindingRepeatedWork, categoriesInput},
	{"constructor", runfmt.FindingConstructor, gzipInput},
	{"off-cpu", runfmt.FindingOffCPU, offCPUInput},
	{"off-cpu-python", runfmt.FindingOffCPU, func(t *testing.T) FindingInput {
		in := offCPUInput(t)
		in.Runtime, in.WaitChecks = runfmt.RuntimePython, []string{"no wall-time profile: py-spy --idle is off"}
		return in
	}},
	{"cpu-contention", runfmt.FindingCPUContention, contentionInput},
	{"spin-wait", runfmt.FindingSpinWait, spinWaitInput},
	{"lock-contention-profile", runfmt.FindingLockContention, lockProfileInput},
	{"goroutine-growth", runfmt.FindingGoroutineGrowth, func(t *testing.T) FindingInput { return goroutinesInput(t, 5, 505) }},
	{"downstream-wait", runfmt.FindingDownstreamWait, waitsInput},
	{"lock-contention", runfmt.FindingLockContention, waitsInput},
	{"pool-wait", runfmt.FindingPoolWait, waitsInput},
	{"sync-wait", runfmt.FindingSyncWait, waitsInput},
	{"sleep", runfmt.FindingSleep, waitsInput},
	{"syscall-wait", runfmt.FindingSyscallWait, waitsInput},
	{"client-io", runfmt.FindingClientIO, waitsInput},
	{"gc-pause", runfmt.FindingGCPause, waitsInput},
	{"scheduler-latency", runfmt.FindingSchedulerLatency, schedulerInput},
	{"gomaxprocs", runfmt.FindingGOMAXPROCS, gomaxprocsInput},
	{"memory-growth", runfmt.FindingMemoryGrowth, memoryInput},
	{"cpu-throttled-gomaxprocs", runfmt.FindingThrottled, throttledGoInput},
	{"cpu-throttled-workers", runfmt.FindingThrottled, throttledPythonInput},
	{"cpu-bound-queueing", runfmt.FindingCPUBound, queueingInput},
	{"downstream-wait-ledger", runfmt.FindingDownstreamWait, downstreamLedgerInput},
	{"n-plus-one", runfmt.FindingNPlusOne, nPlusOneInput},
	{"start-up-workers", runfmt.FindingStartup, workersStartedInput},
	{"start-up-imports", runfmt.FindingStartup, lazyImportInput},
	{"network-stall-jdk-httpserver", runfmt.FindingNetworkStall, nagleInput},
	{"network-stall-go", runfmt.FindingNetworkStall, nagleGoInput},
}

// TestEveryKindHasACase: each case gives its finding, every kind of
// finding has a case and words, and the findings' data is
// testdata/TestEveryKindHasACase.json.golden (which report's goldens
// render in text, markdown and HTML).
func TestEveryKindHasACase(t *testing.T) {
	type named struct {
		Name    string         `json:"name"`
		Finding runfmt.Finding `json:"finding"`
	}
	var all []named
	seen := map[runfmt.FindingKind]bool{}
	for _, c := range findingCases {
		i := slices.IndexFunc(Findings(c.in(t)), func(f runfmt.Finding) bool { return f.Kind == c.kind })
		if i < 0 {
			t.Errorf("case %s: no %s finding", c.name, c.kind)
			continue
		}
		all = append(all, named{c.name, Findings(c.in(t))[i]})
		seen[c.kind] = true
	}
	all = append(all, named{"stuck", Stuck(stuckSnapshot())})
	seen[runfmt.FindingStuck] = true
	oom, ok := OutOfMemory(&runfmt.TargetSummary{OOMKilled: true, MemoryLimitBytes: 32 << 20, RSSMaxBytes: 31 << 20})
	if !ok {
		t.Error("OutOfMemory of a service the OOM killer killed: no finding")
	}
	all = append(all, named{"out-of-memory", oom})
	seen[runfmt.FindingOutOfMemory] = true
	for _, b := range []struct {
		name string
		b    *runfmt.Batch
	}{{"serial", batchOf(3, 2.9, 0.6, 8)}, {"batch-cpu-contention", batchOf(6, 2.7, 9, 2)}, {"batch-budget", throttledBatch()}} {
		fs := BatchFindings(b.b, freqHot)
		if len(fs) != 1 {
			t.Fatalf("batch case %s: %d findings, want 1", b.name, len(fs))
		}
		all = append(all, named{b.name, fs[0]})
		seen[fs[0].Kind] = true
	}
	for _, c := range serialPhaseCases() {
		fs := SerialPhaseFindings(nil, c.b, c.tl, chainDigestCode)
		if len(fs) != 1 {
			t.Fatalf("serial phase case %s: %d findings, want 1", c.name, len(fs))
		}
		all = append(all, named{c.name, fs[0]})
		seen[fs[0].Kind] = true
	}
	for _, k := range runfmt.FindingKinds.List() {
		if !seen[k] {
			t.Errorf("finding kind %s has no case", k)
		}
	}
	for _, c := range all {
		// A kind without words reads as its name, with no detail.
		w := prose.Wording(&c.Finding)
		if w.Title.Text() == string(c.Finding.Kind) || len(w.Detail) == 0 {
			t.Errorf("case %s: finding kind %s has no words", c.Name, c.Finding.Kind)
		}
		if c.Finding.Advice != "" && len(w.Advice) == 0 {
			t.Errorf("case %s: advice %s has no words", c.Name, c.Finding.Advice)
		}
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, ".json", append(b, '\n'), *update)
}

// TestEveryCategoryHasWords: each category of library work words its
// advice in findings of its kind, and, when its result can be cached, in
// findings of repeated work.
func TestEveryCategoryHasWords(t *testing.T) {
	for _, c := range categories {
		kinds := []runfmt.FindingKind{c.kind}
		if c.cacheable && c.kind != runfmt.FindingRepeatedWork {
			kinds = append(kinds, runfmt.FindingRepeatedWork)
		}
		for _, k := range kinds {
			f := runfmt.Finding{Kind: k, Advice: c.key, Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{
				{Role: runfmt.RoleCulprit, Function: "main.render"}, {Role: runfmt.RoleEntry, Function: c.prefixes[0] + "Call"}}}}
			if len(prose.Wording(&f).Advice) == 0 {
				t.Errorf("category %s: a finding of kind %s has no words for its advice", c.key, k)
			}
		}
	}
}

// serialPhaseCases are a Go program's serial phase as its scheduler's
// trace shows it, and a native program's under a budget, its threads
// waiting for a CPU.
func serialPhaseCases() []struct {
	name string
	b    *runfmt.Batch
	tl   Timeline
} {
	goSched := steps(0.1, concat(repeat(1, 18), repeat(2, 12)))
	goSched.Source = runfmt.SourceGoScheduler
	native := phaseBatch(3, 4)
	native.Cores.GOMAXPROCS, native.Cores.BudgetCores = 0, 1.5
	return []struct {
		name string
		b    *runfmt.Batch
		tl   Timeline
	}{
		{"serial-phase", phaseBatch(3, 2), goSched},
		{"serial-phase-native", native, steps(0.1, concat(repeat(0.7, 18), repeat(1.2, 12)), concat(repeat(0.3, 18), repeat(0.3, 12)))},
	}
}

// chainDigestCode is a serial phase's code: main.chainDigest.
func chainDigestCode(float64, float64) ([]runfmt.HotFunc, string) {
	return []runfmt.HotFunc{{Function: "main.chainDigest", File: "/src/serialphase/main.go", UserCode: true, CumPct: 97, AttributedSample: "crypto/sha256.Sum256",
		Lines: []runfmt.SourceLine{{File: "/src/serialphase/main.go", Line: 63, Text: "sum = sha256.Sum256(block[:])", Pct: 100}}}}, ""
}

// budgetInput is a service at its CPU budget with a busy collector:
// cpu-bound, gc, formatting (main.render) and hot-user-function
// (main.search).
func budgetInput(t *testing.T) FindingInput {
	allocs := labtest.NewProfile(t, "alloc_objects/count", "alloc_space/bytes").
		Add("main.handler;main.search;runtime.mallocgc", 4000, 120<<20).
		Add("main.handler;main.render;fmt.Sprintf;runtime.mallocgc", 1000, 30<<20).
		Profile()
	return FindingInput{CPU: labtest.CPUProfile(t), Allocs: allocs, Requests: 1000,
		Target: &runfmt.TargetSummary{CPUBound: true, CPUCoresMean: 1.97, CPUCoresMax: 2, CPULimitCores: 2, CPUMsPerRequest: 1.25, ThrottledPct: 40},
		GC:     &runfmt.GCSummary{CPUPct: 25, CPUPctSource: runfmt.SourceGCTrace, Count: 40, HeapMaxMiB: 12, AllocMiBPerS: 300, GOGC: "100"}}
}

// categoriesInput is library work under five user functions: encoding,
// compression, regular expressions and reflection under 30% each, PNG
// encoding (cacheable) above.
func categoriesInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.handler;main.encode;encoding/json.Marshal", 18e6).
		Add("main.handler;main.zip;compress/gzip.(*Writer).Write", 18e6).
		Add("main.handler;main.match;regexp.(*Regexp).MatchString", 16e6).
		Add("main.handler;main.inspect;reflect.Value.Field", 16e6).
		Add("main.handler;main.thumbnail;image/png.Encode", 32e6).
		Profile()
	return FindingInput{CPU: cpu, Requests: 100, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}}
}

// offCPUInput is requests that take 50 ms for 1 ms of CPU, 60% of it in
// system calls, on a Go service without lock profiles.
func offCPUInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.query;syscall.Syscall", 600e6).
		Add("main.h;main.render", 400e6).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 50}, Phases: map[string]runfmt.Latency{"connect": {Mean: 0.2}, "ttfb": {Mean: 49}}}
	return FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: &runfmt.TargetSummary{CPUCoresMean: 0.1, CPULimitCores: 2, CPUMsPerRequest: 1}}
}

// contentionInput is a service whose requests wait for a CPU on a noisy
// machine.
func contentionInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").Add("main.h;main.render", 1e9).Profile()
	q := &runfmt.Quality{Verdict: runfmt.QualityClean, HostCores: 2, OtherCores: 0.05, PerflabCores: 0.9, ServiceCores: 0.3,
		PerflabRunqueueWaitS: 6, TopOther: []runfmt.ProcessCPU{{PID: 4242, Name: "sshd", Cores: 0.04}}}
	return FindingInput{CPU: cpu, Requests: 1000, Load: &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 20}}, Quality: q,
		Target: &runfmt.TargetSummary{CPUCoresMean: 0.3, CPULimitCores: 1, CPUMsPerRequest: 1, CPUSeconds: 1, RunqueueWaitSeconds: 4}}
}

// spinWaitInput is a Go service whose GC mark worker spun in suspendG for
// 90% of the CPU, waiting for goroutines whose threads waited for a CPU
// (4.67 s in the run queue against 2.36 s run).
func spinWaitInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("runtime.gcBgMarkWorker;runtime.gcDrain;runtime.markroot;runtime.suspendG;runtime.procyield", 850e6).
		Add("runtime.gcBgMarkWorker;runtime.gcDrain;runtime.markroot;runtime.suspendG", 50e6).
		Add("runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject", 20e6).
		Add("main.handler;main.NewMash", 80e6).
		Profile()
	return FindingInput{CPU: cpu, Requests: 81,
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 29, CPUSeconds: 2.36, RunqueueWaitSeconds: 4.67, CPUCoresMean: 0.59, CPULimitCores: 1}}
}

// lockProfileInput is a mutex profile: main.(*cache).get waits 2 ms a
// request.
func lockProfileInput(t *testing.T) FindingInput {
	mutex := labtest.NewProfile(t, "contentions/count", "delay/nanoseconds").
		Add("main.h;main.(*cache).get;sync.(*Mutex).Lock", 100, 2e9).
		Add("main.h;main.log;sync.(*Mutex).Lock", 10, 1e8).
		Profile()
	return FindingInput{Mutex: mutex, Requests: 1000, Load: &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 20}}}
}

// goroutinesInput is start and then end goroutines parked in a channel
// receive in main.worker, and 5 others.
func goroutinesInput(t *testing.T, start, end int64) FindingInput {
	g := func(n int64) *profile.Profile {
		return labtest.NewProfile(t, "goroutine/count").
			Add("runtime.goexit;main.main;runtime.gopark", 1).
			Add("runtime.goexit;net/http.(*conn).serve;runtime.gopark", 4).
			Add("runtime.goexit;main.worker;runtime.chanrecv1;runtime.gopark", n).
			Profile()
	}
	return FindingInput{GoroutinesStart: g(start), GoroutinesEnd: g(end)}
}

// waitsInput is a Go execution trace of requests that wait 12 ms each in
// eight kinds of wait, 5 ms running.
func waitsInput(t *testing.T) FindingInput {
	h := labtest.HandlerStack
	const n = 100
	wall := labtest.NewWall(t).
		Add(h, runfmt.WaitCPU, n*5e6).
		Add(h+";main.fetchPrice;net/http.(*Client).Get;runtime.selectgo", runfmt.WaitDownstream, n*12e6).
		Add(h+";main.(*store).get;sync.(*Mutex).Lock", runfmt.WaitLock, n*12e6).
		Add(h+";main.query;database/sql.(*DB).conn;runtime.selectgo", runfmt.WaitPool, n*12e6).
		Add(h+";main.fanout;runtime.chanrecv1", runfmt.WaitChannel, n*12e6).
		Add(h+";main.throttle;time.Sleep", runfmt.WaitSleep, n*12e6).
		Add(h+";main.readTable;io.ReadFull;syscall.read", runfmt.WaitSyscall, n*12e6).
		Add(h+";main.upload;net/http.(*body).Read", runfmt.WaitClient, n*12e6).
		Add(h, runfmt.WaitGCStop, n*12e6).
		Profile()
	holders := labtest.NewWall(t).Add(h+";main.(*store).put;sync.(*Mutex).Unlock", runfmt.WaitLock, n*12e6).Profile()
	tm := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Seconds: 2, Requests: n, Kinds: analysis.TimeKinds(wall, n, analysis.UserCode{}),
		Scheduler: &runfmt.GoScheduler{GOMAXPROCS: 4, PBusyPct: 35, GCStopMs: 12, GCCycles: 6}}
	for _, k := range tm.Kinds {
		tm.TotalMs += k.MsPerRequest
	}
	return FindingInput{Wall: wall, Holders: holders, Time: tm, Requests: n, Peers: []string{"10.0.0.7:5432", "api.example.com:443"}}
}

// schedulerInput is a trace whose requests wait 3 ms for a P and run 2 ms
// longer than the CPU they use.
func schedulerInput(t *testing.T) FindingInput {
	const n = 100
	wall := labtest.NewWall(t).
		Add(labtest.HandlerStack, runfmt.WaitCPU, n*9e6).
		Add(labtest.HandlerStack+";main.render", runfmt.WaitRunnable, n*3e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Seconds: 1, Requests: n, Kinds: analysis.TimeKinds(wall, n, analysis.UserCode{}),
		Scheduler: &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 97}}
	for _, k := range tm.Kinds {
		tm.TotalMs += k.MsPerRequest
	}
	return FindingInput{Wall: wall, Time: tm, Requests: n, Target: &runfmt.TargetSummary{CPUMsPerRequest: 7, CPUCoresMean: 0.5, RunqueueWaitSeconds: 0.05}}
}

// gomaxprocsInput is 8 Ps under a 1-core budget, throttled.
func gomaxprocsInput(*testing.T) FindingInput {
	return FindingInput{Requests: 1000,
		Target:    &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: 0.98, ThrottledPct: 40, ThrottledSeconds: 1.2, CPUBound: true, CPUMsPerRequest: 2},
		GoRuntime: &runfmt.GoRuntime{GOMAXPROCS: 8, GOMAXPROCSSource: "gctrace", GOMAXPROCSEnv: "8"},
		Load:      &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 9, P99: 40}}}
}

// memoryInput is a live heap that grows 10 MB a second, main.remember
// retaining 1100 B a request.
func memoryInput(*testing.T) FindingInput {
	return FindingInput{Requests: 30000, Heap: &runfmt.HeapGrowth{LiveStartMiB: 10, LiveEndMiB: 40, SlopeMiBPerS: 10, Collections: 6, InuseStartMiB: 10, InuseEndMiB: 40,
		BytesPerRequest: 1100, Sites: []runfmt.HeapSite{{Function: "main.remember", BytesPerRequest: 1100, MiBPerS: 10}}}}
}

// stuckSnapshot is a deadlocked service's threads: a lock nobody
// releases, one goroutine holding it and waiting for it again.
func stuckSnapshot() *runfmt.Stuck {
	return &runfmt.Stuck{Kind: runfmt.StuckNoRequestFinished, StalledS: 1.5, AtS: 1.6, Seconds: 0.012, InFlight: 8, Threads: 19,
		Notes: []string{"process 43 could not be read: permission denied"},
		Groups: []runfmt.StuckGroup{
			{Count: 7, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Put", File: "/src/main.go", Line: 59},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Len", File: "/src/main.go", Line: 77, Caller: "main.(*store).Put", CallerFile: "/src/main.go", CallerLine: 66},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "network", Blocking: "net/http.(*Server).Serve", Function: "main.serve", File: "/src/main.go", Line: 20, Idle: true},
		}}
}
