package findings

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// plantedWall is labtest.PlantedWall with its split per request.
func plantedWall(t testing.TB) (*profile.Profile, *runfmt.TimePerRequest) {
	wall := labtest.PlantedWall(t)
	tm := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Seconds: 1, Requests: 100, Kinds: analysis.TimeKinds(wall, 100, analysis.UserCode{})}
	for _, k := range tm.Kinds {
		tm.TotalMs += k.MsPerRequest
	}
	return wall, tm
}

func TestWaitFindingsFromWall(t *testing.T) {
	wall, tm := plantedWall(t)
	fs := Findings(FindingInput{Wall: wall, Time: tm, Requests: 100, Peers: []string{"10.0.0.7:443 (4 connections)"},
		Load: &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 27}}, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
	for _, f := range fs {
		t.Logf("[%s] %s (%.0f µs waited) | %s", f.Kind, title(f), f.Figures[runfmt.FigWaitPerRequest], detail(f))
	}
	if len(fs) < 2 {
		t.Fatalf("%d findings; want the downstream wait and the sleep", len(fs))
	}
	d := fs[0]
	if d.Kind != runfmt.FindingDownstreamWait || d.Figures[runfmt.FigWaitPerRequest] != 20500 || !hasFunc(d, "main.fetchPrice") || !hasFunc(d, "net/http.(*Client).Get") ||
		!strings.Contains(detail(d), "10.0.0.7:443") {
		t.Errorf("first finding %+v; want the downstream wait of main.fetchPrice, 20.5 ms with the runnable after, naming the peer", d)
	}
	if s := fs[1]; s.Kind != runfmt.FindingSleep || s.Figures[runfmt.FigWaitPerRequest] != 5000 || !hasFunc(s, "main.throttle") {
		t.Errorf("second finding %+v; want the 5 ms sleep in main.throttle", s)
	}
	for _, f := range fs {
		if f.Kind == runfmt.FindingOffCPU {
			t.Errorf("off-cpu finding %q though the waits explain the latency", title(f))
		}
	}
}

func TestLockFindingNamesHolder(t *testing.T) {
	lock := labtest.HandlerStack + ";main.(*store).get;sync.(*Mutex).Lock;sync.(*Mutex).lockSlow"
	wall := labtest.NewWall(t).
		Add(labtest.HandlerStack, runfmt.WaitCPU, 100*2e6).
		Add(lock, runfmt.WaitLock, 100*14e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: "go-trace", Requests: 100, Kinds: analysis.TimeKinds(wall, 100, analysis.UserCode{}), TotalMs: 16}
	holders := labtest.NewWall(t).
		Add(labtest.HandlerStack+";main.(*store).put;sync.(*Mutex).Unlock", runfmt.WaitLock, 100*14e6).
		Profile()
	fs := Findings(FindingInput{Wall: wall, Holders: holders, Time: tm, Requests: 100})
	if len(fs) == 0 || fs[0].Kind != runfmt.FindingLockContention || !hasFunc(fs[0], "main.(*store).get") || !strings.Contains(detail(fs[0]), "main.(*store).put") {
		t.Fatalf("findings %+v; want lock contention in main.(*store).get, released in main.(*store).put", fs)
	}
}

func TestWaitWithoutUserCodeIsNotNamed(t *testing.T) {
	wall := labtest.NewWall(t).
		Add(labtest.HandlerStack, runfmt.WaitCPU, 1e6).
		Add("runtime.goexit;net/http.(*conn).serve;net/http.(*conn).readRequest;syscall.read", runfmt.WaitSyscall, 9e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: "go-trace", Requests: 1, Kinds: analysis.TimeKinds(wall, 1, analysis.UserCode{}), TotalMs: 10}
	for _, f := range Findings(FindingInput{Wall: wall, Time: tm, Requests: 1}) {
		if f.Kind == runfmt.FindingSyscallWait {
			t.Errorf("syscall finding %q without user code to name", title(f))
		}
	}
}

func TestGOMAXPROCSAboveBudget(t *testing.T) {
	in := FindingInput{Requests: 1000,
		Target:    &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: 0.98, ThrottledPct: 40, ThrottledSeconds: 1.2, CPUBound: true, CPUMsPerRequest: 2},
		GoRuntime: &runfmt.GoRuntime{GOMAXPROCS: 8, GOMAXPROCSSource: "gctrace", GOMAXPROCSEnv: "8"},
		Load:      &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 9, P99: 40}}}
	f := findKind(Findings(in), runfmt.FindingGOMAXPROCS)
	if len(f) != 1 || f[0].Figures[runfmt.FigWaitPerRequest] != 7000 || !strings.Contains(detail(f[0]), "GOMAXPROCS=1") || !strings.Contains(detail(f[0]), "40%") {
		t.Fatalf("gomaxprocs findings %+v; want one, 7 ms (latency beyond the CPU), advising GOMAXPROCS=1 with the throttling", f)
	}
	// Go's own floor under a 1-core limit is 2: not a finding.
	in.GoRuntime.GOMAXPROCS = 2
	if f := findKind(Findings(in), runfmt.FindingGOMAXPROCS); len(f) != 0 {
		t.Errorf("GOMAXPROCS 2 under 1 core reported: %+v", f)
	}
}

func TestMemoryGrowth(t *testing.T) {
	h := &runfmt.HeapGrowth{LiveStartMiB: 10, LiveEndMiB: 40, SlopeMiBPerS: 10, Collections: 6, InuseStartMiB: 10, InuseEndMiB: 40,
		BytesPerRequest: 1100, Sites: []runfmt.HeapSite{{Function: "main.remember", BytesPerRequest: 1100, MiBPerS: 10}}}
	f := findKind(Findings(FindingInput{Heap: h, Requests: 30000}), runfmt.FindingMemoryGrowth)
	if len(f) != 1 || f[0].Figures[runfmt.FigBytesPerRequest] != 1100 || !hasFunc(f[0], "main.remember") {
		t.Fatalf("memory-growth findings %+v; want main.remember at 1100 B/request", f)
	}
	// gctrace's whole megabytes move by one on a small heap: not growth.
	small := &runfmt.HeapGrowth{LiveStartMiB: 1, LiveEndMiB: 2, SlopeMiBPerS: 0.3, Collections: 80, InuseStartMiB: 4, InuseEndMiB: 4}
	if f := findKind(Findings(FindingInput{Heap: small, Requests: 1000}), runfmt.FindingMemoryGrowth); len(f) != 0 {
		t.Errorf("memory growth reported for a steady heap: %+v", f)
	}
	// A 2 MiB heap's profile holds four samples or so: two more at the end,
	// beside gctrace's whole megabytes moving by one, is not growth.
	sampled := &runfmt.HeapGrowth{LiveStartMiB: 1, LiveEndMiB: 2, SlopeMiBPerS: 0.11, Collections: 78, InuseStartMiB: 2.0, InuseEndMiB: 3.0, BytesPerRequest: 582}
	if f := findKind(Findings(FindingInput{Heap: sampled, Requests: 1800}), runfmt.FindingMemoryGrowth); len(f) != 0 {
		t.Errorf("memory growth reported for two samples more in a small heap's profile: %+v", f)
	}
	// The demo's log tail churns: the sampled in-use profiles moved 7.5 MB
	// while gctrace's exact live heap stayed at 25 MB over 54 collections.
	churn := &runfmt.HeapGrowth{LiveStartMiB: 25, LiveEndMiB: 25, SlopeMiBPerS: 0.045, Collections: 54, InuseStartMiB: 21.3, InuseEndMiB: 28.8,
		BytesPerRequest: 2536, Sites: []runfmt.HeapSite{{Function: "main.parse", BytesPerRequest: 2536, MiBPerS: 0.75}}}
	if f := findKind(Findings(FindingInput{Heap: churn, Requests: 3000}), runfmt.FindingMemoryGrowth); len(f) != 0 {
		t.Errorf("memory growth reported where gctrace's live heap stayed flat: %+v", f)
	}
}

func TestOffCPUSaysWhatWasChecked(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add(labtest.HandlerStack, 1e8).
		Profile()
	fs := Findings(FindingInput{CPU: cpu, Requests: 100, Load: &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 30}},
		WaitChecks: []string{"no execution trace (--no-trace)"}})
	f := findKind(fs, runfmt.FindingOffCPU)
	if len(f) != 1 || !strings.Contains(detail(f[0]), "What was checked") || !strings.Contains(detail(f[0]), "--no-trace") ||
		strings.Contains(detail(f[0]), "Look at") {
		t.Fatalf("off-cpu findings %+v; want what was checked, not advice to look", f)
	}
}

// TestSyscallWaitOnAStarvedMachine: system calls that took long because the
// service's threads waited for a CPU are CPU contention, not a syscall
// finding.
func TestSyscallWaitOnAStarvedMachine(t *testing.T) {
	wall := labtest.NewWall(t).
		Add(labtest.HandlerStack, runfmt.WaitCPU, 100*1e6).
		Add(labtest.HandlerStack+";main.readTable;io.ReadFull;syscall.read", runfmt.WaitSyscall, 100*5e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: "go-trace", Requests: 100, Kinds: analysis.TimeKinds(wall, 100, analysis.UserCode{}), TotalMs: 6}
	in := FindingInput{Wall: wall, Time: tm, Requests: 100, Target: &runfmt.TargetSummary{RunqueueWaitSeconds: 0.001}}
	if f := findKind(Findings(in), runfmt.FindingSyscallWait); len(f) != 1 || !hasFunc(f[0], "main.readTable") {
		t.Fatalf("syscall findings %+v on a quiet machine; want main.readTable", f)
	}
	in.Target.RunqueueWaitSeconds = 1 // 10 ms a request waiting for a CPU
	if f := findKind(Findings(in), runfmt.FindingSyscallWait); len(f) != 0 {
		t.Errorf("syscall finding %+v while the service's threads waited 10 ms a request for a CPU", f)
	}
}
