package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Names a hostile user could give runs, targets and functions: each must
// reach every page escaped.
const (
	evilName   = `<script>alert("name")</script>`
	evilTarget = `GET http://127.0.0.1:1/<img src=x onerror=alert(1)>`
	evilFunc   = `main.(*h).<b onmouseover=alert(2)>`
)

// fixtureRun is a run as perflab run writes it, without a real service:
// a load with per-second series and an HDR histogram, the service's CPU and
// memory, GC events, hot functions and findings with culprit lines, and a
// CPU profile whose hot function is fn (at cpuNs per request).
type fixtureRun struct {
	id, name string
	at       time.Time
	fn       string
	cpuMs    float64
	p99      float64
}

// write writes the run's directory under root and returns its path.
func (f fixtureRun) write(t testing.TB, root string) string {
	t.Helper()
	dir := filepath.Join(root, f.id)
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	const requests = 4000
	prof := cpuProfile(f.fn, int64(f.cpuMs*1e6*requests))
	writeProfile(t, filepath.Join(dir, "profiles", "cpu.pb.gz"), prof)
	wall := cpuProfile(f.fn, int64(f.cpuMs*3e6*requests))
	wall.SampleType = []*profile.ValueType{{Type: runfmt.WallSample, Unit: "nanoseconds"}, {Type: runfmt.OffCPUSample, Unit: "nanoseconds"}}
	writeProfile(t, filepath.Join(dir, "profiles", "wall.pb.gz"), wall)
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: f.name, ID: f.id, Started: f.at, Status: runfmt.StatusComplete,
		Config: runfmt.Config{URL: "http://127.0.0.1:1/search", Command: []string{"./svc"}, CPUs: 1, Load: map[string]string{"c": "4"}},
		Env:    runfmt.Environment{PerflabVersion: "test", GoVersion: "go1.26", Hostname: "box", HostCores: 2, Kernel: "6.1", CgroupVersion: "v2"},
		Target: &runfmt.TargetSummary{CPUCoresMean: 0.9, CPUCoresMax: 1, CPUMsPerRequest: f.cpuMs, RSSMaxBytes: 40 << 20, CPULimitCores: 1, ThrottledPct: 12, Source: "cgroup-v2"},
		GC:     &runfmt.GCSummary{Count: 3, CPUPct: 5, HeapMaxMiB: 12},
		Profiles: []runfmt.ProfileRef{{Type: "cpu", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz", Seconds: 5, Samples: int64(len(prof.Sample))},
			{Type: "wall", Source: runfmt.SourceTime(runfmt.TimeSourceGoTrace), File: "profiles/wall.pb.gz", Seconds: 5}},
		Time: &runfmt.TimePerRequest{Source: "go-trace", Seconds: 5, Requests: requests, TotalMs: 4 * f.cpuMs, Kinds: []runfmt.TimeRow{
			{Kind: "running", MsPerRequest: f.cpuMs}, {Kind: "network", MsPerRequest: 3 * f.cpuMs, Top: &runfmt.TimeSite{Function: f.fn, MsPerRequest: 3 * f.cpuMs, Callee: "net/http.(*Client).Do"}}}},
		Hot: []runfmt.HotFunc{{Function: f.fn, CumPct: 80, FlatPct: 70, CumUsPerRequest: f.cpuMs * 800, CPUUsPerRequest: f.cpuMs * 700, UserCode: true,
			Lines: []runfmt.SourceLine{{File: "/src/svc/search.go", Line: 42, Text: "for _, x := range items { <i>x</i> }", CostUsPerRequest: f.cpuMs * 700, Pct: 90,
				Context: []string{"func search() {", "for _, x := range items { <i>x</i> }", "}"}, ContextStart: 41}}}},
		Findings: []runfmt.Finding{{Kind: runfmt.FindingDownstreamWait, Advice: runfmt.AdviceCallConcurrent,
			Figures:  runfmt.Figures{runfmt.FigWaitPerRequest: f.cpuMs * 3000, runfmt.FigShare: 0.75},
			Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: f.fn, Callee: "net/http.(*Client).Do"}}}},
			{Kind: "hot-user-function", Schema3: runfmt.Schema3{Title: f.fn + ": 80% of CPU", Detail: "start here <b>now</b>", Functions: []string{f.fn},
				CostUsPerRequest: f.cpuMs * 800, Share: 0.8},
				Lines: []runfmt.SourceLine{{File: "/src/svc/search.go", Line: 42, Text: "for _, x := range items { <i>x</i> }", CostUsPerRequest: f.cpuMs * 700, Pct: 90,
					Context: []string{"func search() {", "for _, x := range items { <i>x</i> }", "}"}, ContextStart: 41}}}},
	}
	for i := range 5 {
		r.GC.Events = append(r.GC.Events, runfmt.GCEvent{T: float64(i) + 0.3, HeapStartMiB: 12, HeapEndMiB: 13, HeapLiveMiB: 6 + float64(i)})
	}
	l := &runfmt.LoadResult{Model: "closed", Requests: requests, DurationS: 5, RPS: requests / 5,
		Latency: runfmt.Latency{P50: f.p99 / 3, P99: f.p99, Max: f.p99 * 1.5}, Histogram: histogram(requests, f.p99)}
	l.Targets = []runfmt.TargetStats{{Target: evilTarget, Requests: requests, Latency: l.Latency, Histogram: l.Histogram}}
	for i := range 5 {
		cores, rss, thr := 0.9, int64(40+i)<<20, 10.0*float64(i)
		l.Series = append(l.Series, runfmt.SeriesPoint{T: float64(i), Requests: requests / 5, P50: f.p99 / 3, P99: f.p99, Max: f.p99 * 1.2,
			CPUCores: &cores, RSSBytes: &rss, ThrottledPct: &thr,
			Phases: &runfmt.PhaseMeans{Timed: requests / 5, WaitingMs: f.p99 / 4, ReceivingMs: f.p99 / 12}})
	}
	r.Load = l
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeProfile(t testing.TB, path string, p *profile.Profile) {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// histogram is an encoded HDR histogram of n latencies up to p99 ms.
func histogram(n int, p99 float64) string {
	h := hdr.New(1, 60_000_000, 3)
	for i := range n {
		h.RecordValue(int64(p99 * 1000 * float64(i+1) / float64(n) * 0.99))
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// cpuProfile is a CPU profile of a service whose handler calls fn, which
// spends most of cpuNs in strings.ToLower.
func cpuProfile(fn string, cpuNs int64) *profile.Profile {
	names := []string{"runtime.goexit", "net/http.(*conn).serve", "main.handler", fn, "strings.ToLower", "runtime.mallocgc"}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000, DurationNanos: 5e9,
	}
	var locs []*profile.Location
	for i, n := range names {
		fn := &profile.Function{ID: uint64(i + 1), Name: n, SystemName: n, Filename: "/src/svc/main.go"}
		p.Function = append(p.Function, fn)
		loc := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(10 + i)}}}
		p.Location = append(p.Location, loc)
		locs = append(locs, loc)
	}
	stack := func(depth int) []*profile.Location {
		out := make([]*profile.Location, depth)
		for i := range depth {
			out[i] = locs[depth-1-i]
		}
		return out
	}
	add := func(depth int, ns int64) {
		p.Sample = append(p.Sample, &profile.Sample{Location: stack(depth), Value: []int64{ns / 10_000_000, ns}})
	}
	add(6, cpuNs*6/10)
	add(5, cpuNs*2/10)
	add(4, cpuNs*1/10)
	add(3, cpuNs*1/10)
	return p
}

// fixtureRuns writes runs of two services, three runs each (the second
// service's hot function is named evilFunc), and one run named evilName.
func fixtureRuns(t testing.TB) (root string, ids []string) {
	t.Helper()
	root = t.TempDir()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var runs []fixtureRun
	for i := range 3 {
		runs = append(runs,
			fixtureRun{id: fmt.Sprintf("20261101-1%d0000-api", i), name: "api", at: t0.Add(time.Duration(i) * time.Hour), fn: "main.search", cpuMs: 1 + 0.2*float64(i), p99: 20 + float64(i)},
			fixtureRun{id: fmt.Sprintf("20261101-1%d3000-worker", i), name: "worker", at: t0.Add(time.Duration(i)*time.Hour + 30*time.Minute), fn: evilFunc, cpuMs: 2, p99: 40})
	}
	runs = append(runs, fixtureRun{id: "20261101-200000-evil", name: evilName, at: t0.Add(10 * time.Hour), fn: "main.search", cpuMs: 1, p99: 10})
	for _, r := range runs {
		r.write(t, root)
		ids = append(ids, r.id)
	}
	return root, ids
}
