package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// spec describes one run directory a test writes.
type spec struct {
	name     string
	url      string
	cpus     float64
	requests int64
	rps      float64
	p99      float64
	cpuMs    float64
	gcPct    float64
	rss      int64
	// searchNs and lowerNs are CPU nanoseconds per request spent in
	// main.search itself and in strings.ToLower called from it; otherNs in
	// net/http code with no user frame.
	searchNs, lowerNs, otherNs int64
	// allocBytes is bytes per request allocated by strings.ToLower under
	// main.search.
	allocBytes int64
	noProfiles bool
	partial    string
	noLoad     bool
	// userCode and src are the run's --user-code and project root, as
	// run.json's profiling records them.
	userCode, src string
	// rename renames functions in the run's profiles (a closure the
	// build numbered differently).
	rename map[string]string
}

func (s spec) withDefaults() spec {
	if s.url == "" {
		s.url = "http://127.0.0.1:8080/search?q=oak"
	}
	if s.requests == 0 {
		s.requests = 1000
	}
	if s.name == "" {
		s.name = "svc"
	}
	return s
}

// writeRun writes a run directory for s under root and returns its entry.
func writeRun(t *testing.T, root string, i int, s spec) store.Entry {
	t.Helper()
	s = s.withDefaults()
	st := store.Store{Root: root}
	dir, id, err := st.Create(s.name, time.Date(2025, 1, 2, 3, 4, i, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	r := &runfmt.Run{
		SchemaVersion: runfmt.SchemaVersion, Name: s.name, ID: id, Status: runfmt.StatusComplete,
		Config: runfmt.Config{URL: s.url, Command: []string{"./svc"}, CPUs: s.cpus, WarmupS: 1,
			Load: map[string]string{"concurrency": "4", "duration": "2s"}},
		Env: runfmt.Environment{Hostname: "box", HostCores: 2},
	}
	if !s.noLoad {
		r.Load = &runfmt.LoadResult{Model: "closed", Requests: s.requests, DurationS: 2, RPS: s.rps,
			Latency: runfmt.Latency{P50: s.p99 / 2, P90: s.p99 * 0.8, P99: s.p99}}
		r.Target = &runfmt.TargetSummary{CPUMsPerRequest: s.cpuMs, RSSMaxBytes: s.rss}
		if s.gcPct > 0 {
			r.GC = &runfmt.GCSummary{Count: 3, CPUPct: s.gcPct}
		}
	}
	if s.partial != "" {
		r.Status, r.PartialReason = runfmt.StatusPartial, s.partial
	}
	if s.userCode != "" || s.src != "" {
		r.Profiling = &runfmt.Profiling{UserCode: s.userCode, Src: s.src}
	}
	if !s.noProfiles && !s.noLoad {
		writeProfile(t, dir, "cpu", renamed(cpuProfile(s), s.rename))
		writeProfile(t, dir, "allocs", renamed(allocsProfile(s), s.rename))
		r.Profiles = []runfmt.ProfileRef{
			{Type: "cpu", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz"},
			{Type: "allocs", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/allocs.pb.gz"},
		}
	}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return store.Entry{Dir: dir, Run: r}
}

func writeProfile(t *testing.T, dir, kind string, p *profile.Profile) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "profiles", kind+".pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// stackProfile builds a profile from leaf-first stacks of function names.
func stackProfile(types []*profile.ValueType, samples map[string][]int64, order [][]string) *profile.Profile {
	p := &profile.Profile{SampleType: types, PeriodType: types[len(types)-1], Period: 1}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name, Filename: fileOf(name)}
		funcs[name] = fn
		p.Function = append(p.Function, fn)
		l := &profile.Location{ID: uint64(len(locs) + 1), Address: uint64(0x1000 + 16*len(locs)), Line: []profile.Line{{Function: fn, Line: 10}}}
		locs[name] = l
		p.Location = append(p.Location, l)
		return l
	}
	for _, st := range order {
		key := fmt.Sprint(st)
		v := samples[key]
		if v == nil || v[len(v)-1] == 0 {
			continue
		}
		var ls []*profile.Location
		for _, name := range st {
			ls = append(ls, loc(name))
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: v})
	}
	return p
}

func fileOf(name string) string {
	switch name[:4] {
	case "main":
		return "/src/svc/main.go"
	case "stri":
		return "/usr/lib/go/src/strings/strings.go"
	case "net/":
		return "/usr/lib/go/src/net/http/server.go"
	}
	return "/usr/lib/go/src/runtime/proc.go"
}

var (
	searchStack = []string{"main.search", "main.handler", "net/http.(*conn).serve", "runtime.goexit"}
	lowerStack  = []string{"strings.ToLower", "main.search", "main.handler", "net/http.(*conn).serve", "runtime.goexit"}
	otherStack  = []string{"net/http.(*response).finishRequest", "net/http.(*conn).serve", "runtime.goexit"}
)

func cpuProfile(s spec) *profile.Profile {
	types := []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	v := func(ns int64) []int64 { return []int64{ns * s.requests / 10e6, ns * s.requests} }
	p := stackProfile(types, map[string][]int64{
		fmt.Sprint(searchStack): v(s.searchNs),
		fmt.Sprint(lowerStack):  v(s.lowerNs),
		fmt.Sprint(otherStack):  v(s.otherNs),
	}, [][]string{searchStack, lowerStack, otherStack})
	p.Period, p.DefaultSampleType = 10e6, "cpu"
	return p
}

func allocsProfile(s spec) *profile.Profile {
	types := []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}}
	return stackProfile(types, map[string][]int64{
		fmt.Sprint(lowerStack): {s.requests, s.allocBytes * s.requests},
		fmt.Sprint(otherStack): {s.requests, 64 * s.requests},
	}, [][]string{lowerStack, otherStack})
}

func renamed(p *profile.Profile, names map[string]string) *profile.Profile {
	for _, fn := range p.Function {
		if n, ok := names[fn.Name]; ok {
			fn.Name = n
		}
	}
	return p
}
