package labtest

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// ProfileBuilder builds a profile by hand: one location and function per
// name, each function's file named after its package ("/src/main.go").
type ProfileBuilder struct {
	t    testing.TB
	p    *profile.Profile
	locs map[string]*profile.Location
}

// NewProfile starts a profile with sample types written "type/unit"; the
// last is its period type, with period 1.
func NewProfile(t testing.TB, types ...string) *ProfileBuilder {
	p := &profile.Profile{Period: 1}
	for _, ty := range types {
		typ, unit, _ := strings.Cut(ty, "/")
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: typ, Unit: unit})
	}
	last := p.SampleType[len(p.SampleType)-1]
	p.PeriodType = &profile.ValueType{Type: last.Type, Unit: last.Unit}
	return &ProfileBuilder{t: t, p: p, locs: map[string]*profile.Location{}}
}

// Add adds a sample: a stack written root first as "a;b;c" (the folded
// stack convention) and its values.
func (b *ProfileBuilder) Add(stack string, vals ...int64) *ProfileBuilder {
	frames := strings.Split(stack, ";")
	var ls []*profile.Location
	for i := len(frames) - 1; i >= 0; i-- {
		ls = append(ls, b.location(frames[i]))
	}
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: ls, Value: vals})
	return b
}

func (b *ProfileBuilder) location(name string) *profile.Location {
	if l, ok := b.locs[name]; ok {
		return l
	}
	p := b.p
	fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: "/src/" + packageOf(name) + ".go"}
	p.Function = append(p.Function, fn)
	l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 1}}}
	p.Location = append(p.Location, l)
	b.locs[name] = l
	return l
}

// packageOf is a Go function name's package path ("net/http" of
// "net/http.(*conn).serve").
func packageOf(name string) string {
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}

// Profile is the profile built, checked valid.
func (b *ProfileBuilder) Profile() *profile.Profile {
	b.t.Helper()
	if err := b.p.CheckValid(); err != nil {
		b.t.Fatalf("building profile: %v", err)
	}
	return b.p
}

// CPUProfile is a small CPU profile (nanoseconds) with known costs:
//
//	main.search        100 self, 300 in strings.ToLower (200 via runtime.mallocgc)
//	main.render        50 self, 400 in fmt.Sprintf
//	runtime.gcBgMarkWorker 150 (no user code)
//
// Total 1000.
func CPUProfile(t testing.TB) *profile.Profile {
	return NewProfile(t, "samples/count", "cpu/nanoseconds").
		Add("runtime.goexit;net/http.(*conn).serve;main.handler;main.search", 1, 100).
		Add("runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower", 1, 100).
		Add("runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower;runtime.mallocgc", 2, 200).
		Add("runtime.goexit;net/http.(*conn).serve;main.handler;main.render", 1, 50).
		Add("runtime.goexit;net/http.(*conn).serve;main.handler;main.render;fmt.Sprintf;fmt.(*pp).doPrintf", 4, 400).
		Add("runtime.goexit;runtime.gcBgMarkWorker;runtime.gcDrain", 1, 150).
		Profile()
}
