package analysis

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// smp is one sample of a hand-built profile: a stack written root first as
// "a;b;c" (the folded-stack convention) and its values.
type smp struct {
	stack string
	vals  []int64
}

// build makes a profile with sample types "type/unit" and the samples, one
// location and function per name, files named after the package.
func build(t testing.TB, types []string, samples ...smp) *profile.Profile {
	t.Helper()
	p := &profile.Profile{Period: 1}
	for _, ty := range types {
		typ, unit, _ := strings.Cut(ty, "/")
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: typ, Unit: unit})
	}
	p.PeriodType = &profile.ValueType{Type: p.SampleType[len(p.SampleType)-1].Type, Unit: p.SampleType[len(p.SampleType)-1].Unit}
	locs := map[string]*profile.Location{}
	for _, s := range samples {
		frames := strings.Split(s.stack, ";")
		var ls []*profile.Location
		for i := len(frames) - 1; i >= 0; i-- {
			name := frames[i]
			l, ok := locs[name]
			if !ok {
				fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: "/src/" + goPackage(name) + ".go"}
				p.Function = append(p.Function, fn)
				l = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 1}}}
				p.Location = append(p.Location, l)
				locs[name] = l
			}
			ls = append(ls, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: s.vals})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("building profile: %v", err)
	}
	return p
}

// cpuProfile is a small CPU profile (nanoseconds) with known costs:
//
//	main.search        100 self, 300 in strings.ToLower (200 via runtime.mallocgc)
//	main.render        50 self, 400 in fmt.Sprintf
//	runtime.gcBgMarkWorker 150 (no user code)
//
// Total 1000.
func cpuProfile(t testing.TB) *profile.Profile {
	return build(t, []string{"samples/count", "cpu/nanoseconds"},
		smp{"runtime.goexit;net/http.(*conn).serve;main.handler;main.search", []int64{1, 100}},
		smp{"runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower", []int64{1, 100}},
		smp{"runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower;runtime.mallocgc", []int64{2, 200}},
		smp{"runtime.goexit;net/http.(*conn).serve;main.handler;main.render", []int64{1, 50}},
		smp{"runtime.goexit;net/http.(*conn).serve;main.handler;main.render;fmt.Sprintf;fmt.(*pp).doPrintf", []int64{4, 400}},
		smp{"runtime.goexit;runtime.gcBgMarkWorker;runtime.gcDrain", []int64{1, 150}},
	)
}

// Hot is HotFor by the default rule of user code.
func Hot(cpu *profile.Profile, requests int64, n int) []runfmt.HotFunc {
	return HotFor(cpu, requests, n, UserCode{})
}

// AllocTop is AllocTopFor by the default rule of user code.
func AllocTop(allocs *profile.Profile, requests int64, n int) []runfmt.AllocFunc {
	return AllocTopFor(allocs, requests, n, UserCode{})
}
