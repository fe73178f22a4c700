package findings

import (
	"math"
	"slices"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

func findKind(fs []runfmt.Finding, kind runfmt.FindingKind) []runfmt.Finding {
	var out []runfmt.Finding
	for _, f := range fs {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// near says a and b are equal but for rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func hasFunc(f runfmt.Finding, fn string) bool { return slices.Contains(f.Names(), fn) }

// title and detail are a finding's words as plain text.
func title(f runfmt.Finding) string  { return prose.Wording(&f).Title.Text() }
func detail(f runfmt.Finding) string { return prose.Wording(&f).Detail.Text() }

func TestFindingsRealProfile(t *testing.T) {
	fs := Findings(FindingInput{CPU: labtest.RealCPUProfile(t), Requests: 1000})
	for _, f := range fs {
		t.Logf("%s: %s | %s", f.Kind, title(f), detail(f))
	}
	check := func(kind runfmt.FindingKind, user, std string) {
		t.Helper()
		candidates := findKind(fs, kind)
		if kind == runfmt.FindingRepeatedWork { // below 30% of CPU it is reported as encoding
			candidates = append(candidates, findKind(fs, runfmt.FindingEncoding)...)
		}
		for _, f := range candidates {
			if len(f.Names()) > 1 && f.Names()[0] == labtest.Planted+user && hasFunc(f, std) {
				if f.Figures[runfmt.FigShare] < 0.1 || f.Figures[runfmt.FigCPUPerRequest] <= 0 || !strings.Contains(title(f), user) || !strings.Contains(title(f), std) {
					t.Errorf("%s finding for %s = %+v; want share >= 10%%, cost per request, both names in the title", kind, user, f)
				}
				return
			}
		}
		t.Errorf("no %s finding naming %s then %s", kind, user, std)
	}
	check(runfmt.FindingFormatting, "plantedFormat", "fmt.Sprintf")
	// plantedLower's cost is its own (strings.ToLower under it); the code
	// above it calls three planted functions, so the owner walk names
	// either plantedLower or that caller with plantedLower among the
	// callees its cost is spread over.
	named := false
	for _, f := range findKind(fs, runfmt.FindingHotUserFunction) {
		named = named || hasFunc(f, labtest.Planted+"plantedLower") && strings.Contains(title(f), "plantedLower")
	}
	if !named {
		t.Error("no hot-user-function finding naming plantedLower")
	}
	check(runfmt.FindingRepeatedWork, "plantedPNG", "image/png.Encode")
	for i := 1; i < len(fs); i++ {
		if fs[i].Figures[runfmt.FigShare] > fs[i-1].Figures[runfmt.FigShare] {
			t.Errorf("findings not ranked by share: %v before %v", fs[i-1].Figures[runfmt.FigShare], fs[i].Figures[runfmt.FigShare])
		}
	}
}

func TestFindingsExactShares(t *testing.T) {
	fs := Findings(FindingInput{CPU: labtest.CPUProfile(t), Requests: 10})
	// main.render: 400 of 1000 in fmt -> formatting 40%, 40ns/request.
	f := findKind(fs, runfmt.FindingFormatting)
	if len(f) != 1 || !near(f[0].Figures[runfmt.FigShare], 0.4) || !near(f[0].Figures[runfmt.FigCPUPerRequest], 0.04) || f[0].Names()[0] != "main.render" || f[0].Names()[1] != "fmt.Sprintf" {
		t.Fatalf("formatting findings = %+v", f)
	}
	// main.search: 400 charged, 300 through strings.ToLower.
	h := findKind(fs, runfmt.FindingHotUserFunction)
	if len(h) != 1 || h[0].Names()[0] != "main.search" || h[0].Names()[1] != "strings.ToLower" || !near(h[0].Figures[runfmt.FigShare], 0.4) {
		t.Errorf("hot-user-function findings = %+v", h)
	}
	// The GC workers take 15% of the profile.
	g := findKind(fs, runfmt.FindingGC)
	if len(g) != 1 || !near(g[0].Figures[runfmt.FigShare], 0.15) || len(g[0].Names()) != 1 || g[0].Names()[0] != "main.search" {
		t.Errorf("gc findings = %+v; want 15%% and main.search named as the allocating caller", g)
	}
}

func TestFindingsTargetAndGC(t *testing.T) {
	in := FindingInput{
		CPU: labtest.CPUProfile(t), Allocs: labtest.RealAllocProfile(t), Requests: 50,
		Target: &runfmt.TargetSummary{CPUBound: true, CPUCoresMean: 1.97, CPUCoresMax: 2, CPULimitCores: 2, CPUMsPerRequest: 12.5, ThrottledPct: 40},
		GC:     &runfmt.GCSummary{CPUPct: 25, Count: 40, HeapMaxMiB: 12, AllocMiBPerS: 300},
	}
	fs := Findings(in)
	if c := findKind(fs, runfmt.FindingCPUBound); len(c) != 1 || !strings.Contains(detail(c[0]), "160 requests/s") {
		t.Errorf("cpu-bound findings = %+v; want one with the 2/12.5ms = 160 rps cap", c)
	}
	if fs[0].Kind == runfmt.FindingCPUBound || fs[len(fs)-1].Kind != runfmt.FindingCPUBound {
		t.Errorf("findings %v: want the cost findings first and the service's state (cpu-bound) after them", kinds(fs))
	}
	g := findKind(fs, runfmt.FindingGC)
	if len(g) != 1 || !near(g[0].Figures[runfmt.FigShare], 0.25) || !near(g[0].Figures[runfmt.FigCPUPerRequest], 0.25*12500) || g[0].Figures[runfmt.FigBytesPerRequest] <= 0 {
		t.Fatalf("gc finding = %+v", g)
	}
	if !hasFunc(g[0], labtest.Planted+"plantedParse") || !strings.Contains(detail(g[0]), "GOGC") || !strings.Contains(detail(g[0]), "GOMEMLIMIT") {
		t.Errorf("gc finding lacks the allocating function or the GOGC trade-off: %+v", g[0])
	}
	// Measured CPU per request scales the shares: 40% of 12.5ms = 5ms.
	if f := findKind(fs, runfmt.FindingFormatting); len(f) != 1 || !near(f[0].Figures[runfmt.FigCPUPerRequest], 5000) || !strings.Contains(title(f[0]), "5.00 ms/request") {
		t.Errorf("formatting finding with measured CPU = %+v", f)
	}
	if len(findKind(fs, runfmt.FindingOffCPU)) != 0 {
		t.Error("off-cpu finding for a CPU-bound target")
	}
}

func TestFindingsOffCPU(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.query;syscall.Syscall", 600e6).
		Add("main.h;main.render", 400e6).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 50}, Phases: map[string]runfmt.Latency{"connect": {Mean: 0.2}, "ttfb": {Mean: 49}}}
	fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: &runfmt.TargetSummary{CPUCoresMean: 0.1, CPULimitCores: 2, CPUMsPerRequest: 1}})
	if fs[0].Kind != runfmt.FindingOffCPU {
		t.Fatalf("first finding = %+v, want off-cpu", fs[0])
	}
	for _, want := range []string{"98%", "ttfb 49.00 ms", "60% of the CPU it does use is in system calls"} {
		if !strings.Contains(detail(fs[0]), want) {
			t.Errorf("off-cpu detail lacks %q: %s", want, detail(fs[0]))
		}
	}
}

func TestFindingsCPUContention(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.h;main.render", 1e9).
		Profile()
	load := &runfmt.LoadResult{Requests: 1000, Latency: runfmt.Latency{Mean: 20}}
	target := &runfmt.TargetSummary{CPUCoresMean: 0.6, CPULimitCores: 2, CPUMsPerRequest: 1, RunqueueWaitSeconds: 15}
	fs := Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: target})
	c := findKind(fs, runfmt.FindingCPUContention)
	if len(c) != 1 || !strings.Contains(title(c[0]), "15.00 ms per request") || len(findKind(fs, runfmt.FindingOffCPU)) != 0 {
		t.Fatalf("findings = %+v; want cpu-contention (15 of 19 ms off-CPU waiting for a CPU) instead of off-cpu", fs)
	}
	// A little run-queue wait leaves the off-CPU verdict as it was.
	target.RunqueueWaitSeconds = 2
	fs = Findings(FindingInput{CPU: cpu, Requests: 1000, Load: load, Target: target})
	if len(findKind(fs, runfmt.FindingOffCPU)) != 1 || len(findKind(fs, runfmt.FindingCPUContention)) != 0 {
		t.Errorf("findings = %+v; want off-cpu when the run-queue wait is small", fs)
	}
}

func TestFindingsLocks(t *testing.T) {
	mutex := labtest.NewProfile(t, "contentions/count", "delay/nanoseconds").
		Add("main.h;main.(*cache).get;sync.(*Mutex).Lock", 100, 2e9).
		Add("main.h;main.log;sync.(*Mutex).Lock", 10, 1e8).
		Profile()
	load := &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 20}}
	fs := Findings(FindingInput{Mutex: mutex, Requests: 1000, Load: load})
	l := findKind(fs, runfmt.FindingLockContention)
	if len(l) != 1 || l[0].Names()[0] != "main.(*cache).get" || l[0].Names()[1] != "sync.(*Mutex).Lock" || !strings.Contains(title(l[0]), "2.00 ms/request") {
		t.Errorf("lock findings = %+v", l)
	}
	// Below 5% of latency: nothing.
	if fs := Findings(FindingInput{Mutex: mutex, Requests: 1000000, Load: load}); len(findKind(fs, runfmt.FindingLockContention)) != 0 {
		t.Errorf("lock finding for negligible contention: %+v", fs)
	}
}

func TestFindingsGoroutineGrowth(t *testing.T) {
	fs := Findings(goroutinesInput(t, 5, 505))
	f := findKind(fs, runfmt.FindingGoroutineGrowth)
	if len(f) != 1 || f[0].Names()[0] != "main.worker" || f[0].Names()[1] != "runtime.chanrecv1" || !strings.Contains(title(f[0]), "from 10 to 510") {
		t.Errorf("goroutine findings = %+v", f)
	}
	if fs := Findings(goroutinesInput(t, 5, 20)); len(fs) != 0 {
		t.Errorf("findings for small growth: %+v", fs)
	}
}

func TestFindingsEmpty(t *testing.T) {
	if fs := Findings(FindingInput{}); len(fs) != 0 {
		t.Errorf("Findings(empty) = %+v", fs)
	}
}

// kinds lists the findings' kinds in their order.
func kinds(fs []runfmt.Finding) []runfmt.FindingKind {
	var k []runfmt.FindingKind
	for _, f := range fs {
		k = append(k, f.Kind)
	}
	return k
}
