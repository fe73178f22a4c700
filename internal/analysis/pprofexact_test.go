package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// Tests of inputs whose shape can make perflab's top differ from pprof's;
// each builds its own profile with that shape.

// writeProfile writes data to a file in a temporary directory.
func writeProfile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bothTops computes the top table from the file (lean decoder) and from the
// parsed profile, checks they agree and returns the first.
func bothTops(t *testing.T, p *profile.Profile, opt TopOptions) *Table {
	t.Helper()
	a, err := TopFile(writeProfile(t, "p.pb.gz", encode(t, p, true)), opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Top(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.Rows) != fmt.Sprint(b.Rows) {
		t.Errorf("TopFile rows %v\nTop rows %v", a.Rows, b.Rows)
	}
	return a
}

func TestTopFileRefusesGzipWithoutTrailer(t *testing.T) {
	good := encode(t, cpuProfile(t), true)
	for _, cut := range []int{4, 8} {
		data := good[:len(good)-cut] // the gzip trailer is CRC-32 and size, 8 bytes
		if _, err := profile.ParseData(data); err == nil {
			t.Fatalf("pprof accepts a gzip stream %d bytes short; the test's premise is wrong", cut)
		}
		if _, err := TopFile(writeProfile(t, "cut.pb.gz", data), TopOptions{}); err == nil {
			t.Errorf("TopFile accepts a .pb.gz %d bytes short of its gzip trailer; pprof refuses it", cut)
		}
	}
}

func TestTopAppliesDropFrames(t *testing.T) {
	// A C++-style profile whose drop_frames names the allocator: its cost
	// belongs to the caller, as pprof shows it.
	p := build(t, []string{"samples/count", "cpu/nanoseconds"},
		smp{"main;Parse;malloc;mmap_chunk", []int64{1, 300}},
		smp{"main;Parse;malloc", []int64{1, 200}},
		smp{"main;Parse", []int64{1, 100}},
		smp{"main;Render;operator new(unsigned long);malloc", []int64{1, 50}},
		smp{"main;Render;malloc_trim", []int64{1, 20}},
		smp{"malloc;mmap_chunk", []int64{1, 7}}, // a stack with only dropped frames keeps them
	)
	p.DropFrames = "malloc.*|operator new"
	p.KeepFrames = "malloc_trim"

	want := map[string]int64{}
	ref := p.Copy()
	ref.RemoveUninteresting()
	for _, s := range ref.Sample {
		if len(s.Location) > 0 {
			want[s.Location[0].Line[0].Function.Name] += s.Value[1]
		}
	}
	if want["Parse"] != 600 || want["Render"] != 50 || want["malloc_trim"] != 20 {
		t.Fatalf("pprof's own pruning gives %v; the test's premise is wrong", want)
	}
	tb := bothTops(t, p, TopOptions{})
	got := map[string]int64{}
	for _, r := range tb.Rows {
		if r.Flat > 0 {
			got[r.Function] = r.Flat
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("flat per function %v; pprof (drop_frames %q, keep_frames %q) has %v", got, p.DropFrames, p.KeepFrames, want)
	}
}

// unsymbolisedProfile has 60 distinct unsymbolised addresses in one binary,
// two in libc, one without a mapping, and a function with a blank name.
func unsymbolisedProfile() *profile.Profile {
	bin := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x800000, File: "/opt/bench/cppbench_server"}
	libc := &profile.Mapping{ID: 2, Start: 0x7f0000000000, Limit: 0x7f0000100000, File: "/lib/x86_64-linux-gnu/libc.so.6"}
	blank := &profile.Function{ID: 1, Name: "", Filename: ""}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1,
		Mapping: []*profile.Mapping{bin, libc}, Function: []*profile.Function{blank},
	}
	loc := func(m *profile.Mapping, addr uint64) *profile.Location {
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr}
		p.Location = append(p.Location, l)
		return l
	}
	root := loc(libc, 0x7f0000001000)
	for i := range 60 {
		leaf := loc(bin, 0x401000+uint64(i)*0x40)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{leaf, root}, Value: []int64{1, 10}})
	}
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc(libc, 0x7f0000002000), root}, Value: []int64{1, 5}})
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc(nil, 0x42), root}, Value: []int64{1, 3}})
	named := loc(bin, 0x402000)
	named.Line = []profile.Line{{Function: blank}}
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{named, root}, Value: []int64{1, 2}})
	return p
}

func TestTopUnsymbolisedOneRowPerBinary(t *testing.T) {
	// pprof's functions view names code without symbols (or a function
	// with a blank name) by its binary: one row per binary, not per address.
	tb := bothTops(t, unsymbolisedProfile(), TopOptions{})
	got := map[string][2]int64{}
	for _, r := range tb.Rows {
		got[r.Function] = [2]int64{r.Flat, r.Cum}
	}
	want := map[string][2]int64{
		"[cppbench_server]": {602, 602},
		"[libc.so.6]":       {5, 610},
		"[unknown]":         {3, 3},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	var out bytes.Buffer
	if err := tb.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasSuffix(line, "% ") || strings.HasSuffix(line, "%") {
			t.Errorf("a row without a name: %q", line)
		}
	}
}
