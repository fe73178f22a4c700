package findings

import (
	"strings"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// TestFindingsFollowUserCode: the user's rule of what is their code
// (--user-code) decides the functions every finding names, not only the
// CPU findings: a wait, a lock and an allocation inside a vendored client
// library are the handler's when the library is not the user's.
func TestFindingsFollowUserCode(t *testing.T) {
	const lib = "github.com/acme/client.(*Client).Fetch"
	down := labtest.HandlerStack + ";" + lib + ";net/http.(*Client).Get;runtime.selectgo"
	wall := labtest.NewWall(t).
		Add(labtest.HandlerStack, runfmt.WaitCPU, 100*1e6).
		Add(down, runfmt.WaitDownstream, 100*20e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: "go-trace", Seconds: 1, Requests: 100, Kinds: analysis.TimeKinds(wall, 100, analysis.UserCode{}), TotalMs: 21}
	mutex := labtest.NewProfile(t, "contentions/count", "delay/nanoseconds").
		Add(labtest.HandlerStack+";"+lib+";sync.(*Mutex).Lock", 10, 100*5e6).
		Profile()
	allocs := labtest.NewProfile(t, "alloc_objects/count", "alloc_space/bytes").
		Add(labtest.HandlerStack+";"+lib+";runtime.mallocgc", 1000, 1<<30).
		Profile()
	in := FindingInput{Wall: wall, Time: tm, Mutex: mutex, Allocs: allocs, Requests: 100,
		GC: &runfmt.GCSummary{CPUPct: 30}, Load: &runfmt.LoadResult{Latency: runfmt.Latency{Mean: 26}},
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}}
	check := func(name string, uc analysis.UserCode, want string) {
		t.Helper()
		in.UserCode = uc
		kinds := map[runfmt.FindingKind]bool{}
		for _, f := range Findings(in) {
			switch f.Kind {
			case runfmt.FindingDownstreamWait, runfmt.FindingGC:
				kinds[f.Kind] = true
				if len(f.Names()) == 0 || f.Names()[0] != want {
					t.Errorf("%s: [%s] %q names %v first; want %s", name, f.Kind, title(f), f.Names(), want)
				}
			}
		}
		if !kinds[runfmt.FindingDownstreamWait] || !kinds[runfmt.FindingGC] {
			t.Errorf("%s: findings %v; want a downstream wait and a GC finding", name, kinds)
		}
		in.Wall = nil // the mutex profile is read only without a wall-time profile
		for _, f := range Findings(in) {
			if f.Kind == runfmt.FindingLockContention && f.Names()[0] != want {
				t.Errorf("%s: [%s] %q names %v first; want %s", name, f.Kind, title(f), f.Names(), want)
			}
		}
		in.Wall = wall
	}
	check("default rule", analysis.UserCode{}, lib) // nothing known: in doubt, the user's
	check("--user-code ^main\\.", userCode(t, `^main\.`), "main.handler")
	mods, err := ownership.New(ownership.Spec{Runtime: ownership.LangGo, Modules: []ownership.Module{
		{Lang: ownership.LangGo, Path: "example.com/shop", User: true}, {Lang: ownership.LangGo, Path: "github.com/acme/client", Version: "v1.2.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	check("build info: github.com/acme/client a dependency", analysis.UserCode{Model: mods}, "main.handler")
}

func userCode(t *testing.T, pattern string) analysis.UserCode {
	t.Helper()
	uc, err := analysis.NewUserCode(pattern, "")
	if err != nil {
		t.Fatal(err)
	}
	return uc
}

// TestGCFindingWithoutUserAllocators: when no user function allocates
// (the allocations are all net/http's), the GC finding says what requests
// allocate and names no empty list of functions.
func TestGCFindingWithoutUserAllocators(t *testing.T) {
	allocs := labtest.NewProfile(t, "alloc_objects/count", "alloc_space/bytes").
		Add("runtime.goexit;net/http.(*conn).serve;net/http.(*conn).readRequest;runtime.mallocgc", 1000, 1<<20).
		Profile()
	for _, f := range Findings(FindingInput{Allocs: allocs, Requests: 100, GC: &runfmt.GCSummary{CPUPct: 30}}) {
		if f.Kind == runfmt.FindingGC && (strings.Contains(detail(f), ": .") || !strings.Contains(detail(f), "Requests allocate 10.2 KiB each")) {
			t.Errorf("GC finding detail %q; want the bytes per request and no empty list", detail(f))
		}
	}
}
