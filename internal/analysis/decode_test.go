package analysis

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/stacks"
)

// canonical renders a stackSet as sorted "frames=values" lines plus its
// header, independent of function and stack order.
func canonical(s *stacks.Set) string {
	head := fmt.Sprintf("types=%v default=%q period=%d %v duration=%d\n", s.SampleTypes, s.DefaultType, s.Period, s.PeriodType, s.DurationNanos)
	return head + canonicalStacks(s, func(f stacks.Func) string { return f.Name })
}

// canonicalStacks renders the stacks, each frame named by name.
func canonicalStacks(s *stacks.Set, name func(stacks.Func) string) string {
	agg := map[string][]int64{}
	for i := 0; i < s.NumStacks(); i++ {
		var names []string
		for _, f := range s.Stack(i) {
			names = append(names, name(s.Funcs[f]))
		}
		k := strings.Join(names, ";")
		v := agg[k]
		if v == nil {
			v = make([]int64, len(s.SampleTypes))
		}
		for j := range v {
			v[j] += s.Value(i, j)
		}
		agg[k] = v
	}
	var lines []string
	for k, v := range agg {
		lines = append(lines, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// inlineProfile has inlined frames, an unsymbolised location with a mapping
// and one without, and repeated stacks.
func inlineProfile() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x9000, File: "/usr/lib/libc.so.6"}
	f1 := &profile.Function{ID: 1, Name: "main.outer", Filename: "main.go"}
	f2 := &profile.Function{ID: 2, Name: "main.inlined", Filename: "main.go"}
	f3 := &profile.Function{ID: 3, Name: "runtime.goexit", Filename: "asm.s"}
	l1 := &profile.Location{ID: 1, Line: []profile.Line{{Function: f2, Line: 3}, {Function: f1, Line: 9}}}
	l2 := &profile.Location{ID: 2, Line: []profile.Line{{Function: f3}}}
	l3 := &profile.Location{ID: 3, Mapping: m, Address: 0x1234}
	l4 := &profile.Location{ID: 4, Address: 0x42}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}},
		DefaultSampleType: "alloc_space",
		PeriodType:        &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:            524288,
		DurationNanos:     5e9,
		Mapping:           []*profile.Mapping{m},
		Function:          []*profile.Function{f1, f2, f3},
		Location:          []*profile.Location{l1, l2, l3, l4},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2}, Value: []int64{1, 100}, Label: map[string][]string{"k": {"v"}}},
			{Location: []*profile.Location{l3, l1, l2}, Value: []int64{2, 200}},
			{Location: []*profile.Location{l1, l2}, Value: []int64{3, 300}},
			{Location: []*profile.Location{l4}, Value: []int64{4, 400}},
		},
	}
}

func encode(t testing.TB, p *profile.Profile, gzipped bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	if gzipped {
		err = p.Write(&buf)
	} else {
		err = p.WriteUncompressed(&buf)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkSame decodes data both ways and compares.
func checkSame(t *testing.T, name string, data []byte) {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatalf("%s: profile.ParseData: %v", name, err)
	}
	s, err := readStackSet(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: readStackSet: %v", name, err)
	}
	if got, want := canonical(s), canonical(stacks.FromProfile(p)); got != want {
		t.Errorf("%s: lean decoder differs from profile.Parse:\n--- lean\n%s\n--- profile.Parse\n%s", name, got, want)
	}
}

func TestLeanDecoderMatchesParse(t *testing.T) {
	for name, p := range map[string]*profile.Profile{
		"cpu":    cpuProfile(t),
		"inline": inlineProfile(),
		"real":   realCPUProfile(t),
	} {
		checkSame(t, name+".pb.gz", encode(t, p, true))
		checkSame(t, name+".pb", encode(t, p, false))
	}
}

func TestTopFileFallsBackToParse(t *testing.T) {
	// A legacy text heap profile: not protobuf, profile.Parse reads it.
	legacy := "heap profile: 1: 1024 [2: 2048] @ heap/1048576\n1: 1024 [2: 2048] @ 0x1000 0x2000\n"
	path := filepath.Join(t.TempDir(), "legacy.heap")
	if err := os.WriteFile(path, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := TopFile(path, TopOptions{SampleIndex: "inuse_space"})
	if err != nil {
		t.Fatalf("TopFile(legacy): %v", err)
	}
	if tb.Total == 0 || len(tb.Rows) == 0 {
		t.Errorf("TopFile(legacy) = %+v, want rows", tb)
	}
	if _, err := TopFile(filepath.Join(t.TempDir(), "missing"), TopOptions{}); err == nil {
		t.Error("TopFile(missing file): no error")
	}
}

func TestTopFileEqualsTop(t *testing.T) {
	p := cpuProfile(t)
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(path, encode(t, p, true), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := TopOptions{User: true, Requests: 3}
	a, err := TopFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Top(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("TopFile = %+v\nTop = %+v", a, b)
	}
}

func TestLeanDecoderErrors(t *testing.T) {
	good := encode(t, cpuProfile(t), false)
	for name, data := range map[string][]byte{
		"truncated":  good[:len(good)/2],
		"bad wire":   {0x0b},
		"no strings": {},
		"huge field": {0x12, 0xff, 0xff, 0xff, 0xff, 0x0f},
	} {
		if _, err := readStackSet(bytes.NewReader(data)); err == nil {
			t.Errorf("readStackSet(%s): no error", name)
		}
	}
}

// FuzzReadStackSet checks that the lean decoder never panics and agrees with
// profile.Parse whenever both accept an input.
func FuzzReadStackSet(f *testing.F) {
	f.Add(encode(f, cpuProfile(f), false))
	f.Add(encode(f, inlineProfile(), false))
	f.Add(encode(f, inlineProfile(), true))
	f.Add(encode(f, unsymbolisedProfile(), false))
	pruned := build(f, []string{"cpu/nanoseconds"}, smp{"main;Parse;malloc;mmap", []int64{3}}, smp{"main;Render;operator new(unsigned long)", []int64{2}})
	pruned.DropFrames, pruned.KeepFrames, pruned.Comments = "malloc.*|operator new", "mmap", []string{"two events"}
	f.Add(encode(f, pruned, false))
	f.Add(encode(f, handlersProfile(f, "/src/h.go"), false))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readStackSet(bytes.NewReader(data))
		if err != nil {
			return
		}
		p, err := profile.ParseData(data)
		if err != nil {
			return
		}
		if got, want := canonical(s), canonical(stacks.FromProfile(p)); got != want {
			t.Errorf("lean decoder differs from profile.Parse:\n--- lean\n%s\n--- profile.Parse\n%s", got, want)
		}
		ls, err := stacks.Read(bytes.NewReader(data), true)
		if err != nil {
			t.Fatalf("decodes at function granularity but not at line granularity: %v", err)
		}
		if got, want := canonicalLines(ls), canonicalLines(stacks.FromProfileLines(p)); got != want {
			t.Errorf("lean decoder's lines differ from profile.Parse's:\n--- lean\n%s\n--- profile.Parse\n%s", got, want)
		}
		// The views built on a decoded profile take any of them.
		if _, err := listOf(ls, ".", ListOptions{Requests: 3, Sources: &Sources{}}); err != nil && !strings.Contains(err.Error(), "no function") && !strings.Contains(err.Error(), "sample type") {
			t.Errorf("listing a decoded profile: %v", err)
		}
		if c := computeCostsOrNil(s); c != nil {
			projectUser(c, newHandlerFinder(c)).owners(3, 0.01, nil)
		}
	})
}

// TestTopFileFallbackAfterReadAhead reads a gzipped legacy profile large
// enough that the decompressing read-ahead is still reading the file when
// the lean decoder gives up and profile.Parse reads it again from the start:
// the read-ahead must be stopped first, or the two readers share the file's
// offset and the fallback sees corrupt gzip input.
func TestTopFileFallbackAfterReadAhead(t *testing.T) {
	// A legacy binary CPU profile (header, records of count, depth and
	// PCs, trailer), with random PCs so that it stays large gzipped.
	var raw bytes.Buffer
	word := func(v uint64) { raw.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	for _, w := range []uint64{0, 3, 0, 10000, 0} {
		word(w)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for raw.Len() < 4<<20 {
		word(1 + rnd.Uint64()%(1<<40))
		word(2)
		word(0x400000 + rnd.Uint64()%64)
		word(0x500000 + rnd.Uint64()%64)
	}
	for _, w := range []uint64{0, 1, 0} {
		word(w)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	if gz.Len() <= 1<<20 {
		t.Fatalf("test profile is %d bytes gzipped, want more than the read-ahead's four 256 KiB chunks", gz.Len())
	}
	path := filepath.Join(t.TempDir(), "legacy.cpu.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tries := 20 // without the fix the first try fails (the race is wide)
	if raceEnabled {
		tries = 3 // the race detector makes the legacy parser ten times slower
	}
	for i := range tries {
		if _, err := TopFile(path, TopOptions{}); err != nil {
			t.Fatalf("try %d: TopFile(gzipped legacy profile): %v", i, err)
		}
	}
}

// TestTopFileRefusesWhatItShouldNotRead: a 1 GiB file (sparse: it takes no
// disk) is refused at once for its size, a FIFO without blocking.
func TestTopFileRefusesWhatItShouldNotRead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pb.gz")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1 << 30)
	f.Close()
	start := time.Now()
	if _, err := TopFile(big, TopOptions{}); !errors.Is(err, files.ErrTooLarge) || time.Since(start) > time.Second {
		t.Errorf("TopFile(1 GiB) = %v after %s; want ErrTooLarge at once", err, time.Since(start))
	}
	fifo := filepath.Join(dir, "cpu.pb.gz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := TopFile(fifo, TopOptions{}); !errors.Is(err, files.ErrNotRegular) {
		t.Errorf("TopFile(FIFO) = %v; want ErrNotRegular", err)
	}
}

// canonicalLines is canonical with each frame's line, and the comments.
func canonicalLines(s *stacks.Set) string {
	return fmt.Sprintf("comments=%q\n", s.Comments) + canonicalStacks(s, func(f stacks.Func) string { return fmt.Sprintf("%s:%d", f.Name, f.Line) })
}

// computeCostsOrNil computes the default sample type's costs, nil when the
// profile has none.
func computeCostsOrNil(s *stacks.Set) *Costs {
	vi, err := s.SampleIndex("")
	if err != nil {
		return nil
	}
	return NewCosts(s, vi, UserCode{}, nil)
}
