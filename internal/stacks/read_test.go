package stacks

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

// smallProfile has inlined frames, an unsymbolised location with a
// mapping and one without, a Python frame, drop_frames and repeated
// stacks.
func smallProfile() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x9000, File: "/usr/lib/libc.so.6"}
	f1 := &profile.Function{ID: 1, Name: "main.outer", Filename: "main.go"}
	f2 := &profile.Function{ID: 2, Name: "main.inlined", Filename: "main.go"}
	f3 := &profile.Function{ID: 3, Name: "malloc", Filename: "malloc.c"}
	f4 := &profile.Function{ID: 4, Name: "handle", Filename: "/srv/app.py"}
	l1 := &profile.Location{ID: 1, Line: []profile.Line{{Function: f2, Line: 3}, {Function: f1, Line: 9}}}
	l2 := &profile.Location{ID: 2, Line: []profile.Line{{Function: f3, Line: 1}}}
	l3 := &profile.Location{ID: 3, Mapping: m, Address: 0x1234}
	l4 := &profile.Location{ID: 4, Address: 0x42}
	l5 := &profile.Location{ID: 5, Line: []profile.Line{{Function: f4, Line: 12}}}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		PeriodType:        &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            10000000,
		DropFrames:        "malloc",
		Mapping:           []*profile.Mapping{m},
		Function:          []*profile.Function{f1, f2, f3, f4},
		Location:          []*profile.Location{l1, l2, l3, l4, l5},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l2, l1}, Value: []int64{1, 100}},
			{Location: []*profile.Location{l3, l1}, Value: []int64{2, 200}},
			{Location: []*profile.Location{l1}, Value: []int64{3, 300}},
			{Location: []*profile.Location{l4}, Value: []int64{4, 400}},
			{Location: []*profile.Location{l5}, Value: []int64{5, 500}},
		},
	}
}

func encoded(t testing.TB, p *profile.Profile, gzipped bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	write := p.WriteUncompressed
	if gzipped {
		write = p.Write
	}
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// totals sums each sample type's values over the set's stacks.
func totals(s *Set) []int64 {
	out := make([]int64, len(s.SampleTypes))
	for i := range s.NumStacks() {
		for j := range out {
			out[j] += s.Value(i, j)
		}
	}
	return out
}

// framesUsed lists the functions the stacks name, sorted.
func framesUsed(s *Set) string {
	seen := map[string]bool{}
	for i := range s.NumStacks() {
		for _, f := range s.Stack(i) {
			seen[s.Funcs[f].Name] = true
		}
	}
	return fmt.Sprint(slices.Sorted(maps.Keys(seen)))
}

// sameSets says two sets hold the same sample types, totals and
// functions in their stacks.
func sameSets(a, b *Set) bool {
	if len(a.SampleTypes) != len(b.SampleTypes) || a.Period != b.Period || a.DefaultType != b.DefaultType || framesUsed(a) != framesUsed(b) {
		return false
	}
	ta, tb := totals(a), totals(b)
	for i := range ta {
		if ta[i] != tb[i] {
			return false
		}
	}
	return true
}

func TestReadMatchesFromProfile(t *testing.T) {
	p := smallProfile()
	for _, gz := range []bool{false, true} {
		for _, lines := range []bool{false, true} {
			s, err := Read(bytes.NewReader(encoded(t, p, gz)), lines)
			if err != nil {
				t.Fatalf("Read(gzip %t, lines %t): %v", gz, lines, err)
			}
			want := FromProfile(p)
			if lines {
				want = FromProfileLines(p)
			}
			if !sameSets(s, want) {
				t.Errorf("Read(gzip %t, lines %t) = %+v; FromProfile: %+v", gz, lines, s, want)
			}
		}
	}
}

// FuzzRead checks that the lean decoder never panics, and that whenever
// both it and profile.Parse accept an input they agree on its sample
// types, functions and totals (drop_frames cuts frames, never values).
func FuzzRead(f *testing.F) {
	f.Add(encoded(f, smallProfile(), false))
	f.Add(encoded(f, smallProfile(), true))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), false)
		if err != nil {
			return
		}
		if _, err := Read(bytes.NewReader(data), true); err != nil {
			t.Fatalf("decodes at function granularity but not at line granularity: %v", err)
		}
		p, err := profile.ParseData(data)
		if err != nil {
			return
		}
		if want := FromProfile(p); !sameSets(s, want) {
			t.Errorf("lean decoder differs from profile.Parse: %+v; want %+v", s, want)
		}
	})
}
