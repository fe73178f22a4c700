package profview

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// writeProfile writes a CPU profile of 1s: main.search calling
// strings.ToLower (800ms) under net/http's serve (200ms alone).
func writeProfile(t *testing.T, path string) {
	t.Helper()
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name, Filename: "main.go"}
	}
	fs := []*profile.Function{fn(1, "main.search"), fn(2, "strings.ToLower"), fn(3, "net/http.(*conn).serve")}
	locs := make([]*profile.Location, len(fs))
	for i, f := range fs {
		locs[i] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: f, Line: 1}}}
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		Function: fs, Location: locs, DurationNanos: 1e9,
		Sample: []*profile.Sample{
			{Location: []*profile.Location{locs[1], locs[0], locs[2]}, Value: []int64{80, 800_000_000}},
			{Location: []*profile.Location{locs[2]}, Value: []int64{20, 200_000_000}},
		},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// storedRun writes a run of 1000 requests with that CPU profile into root
// and returns its directory.
func storedRun(t *testing.T, root string, profiling *runfmt.Profiling) string {
	t.Helper()
	dir := filepath.Join(root, "20260101-120000-search")
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeProfile(t, filepath.Join(dir, "profiles", "cpu.pb.gz"))
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "search", ID: "20260101-120000-search", Status: runfmt.StatusComplete,
		Load:      &runfmt.LoadResult{Requests: 1000, DurationS: 1},
		Profiling: profiling,
		Profiles:  []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz", Samples: 100}}}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTopOfAFileAndOfARun(t *testing.T) {
	root := t.TempDir()
	dir := storedRun(t, root, nil)
	file := filepath.Join(dir, "profiles", "cpu.pb.gz")
	for _, tc := range []struct {
		ref          Ref
		arg          string
		wantRequests int64
		wantTop      string
	}{
		{Ref{}, file, 0, "strings.ToLower"},
		{Ref{Requests: 10}, file, 10, "strings.ToLower"},
		{Ref{Root: root}, "latest", 1000, "strings.ToLower"},
		{Ref{Root: root}, dir, 1000, "strings.ToLower"},
	} {
		src, err := tc.ref.Resolve(tc.arg)
		if err != nil {
			t.Errorf("%+v.Resolve(%q): %v", tc.ref, tc.arg, err)
			continue
		}
		tab, err := src.Top(TopOptions{N: 1})
		if err != nil {
			t.Errorf("%+v.Resolve(%q).Top: %v", tc.ref, tc.arg, err)
			continue
		}
		if tab.Requests != tc.wantRequests || tab.Total != 1e9 || len(tab.Rows) != 1 || tab.Rows[0].Function != tc.wantTop {
			t.Errorf("%+v.Resolve(%q).Top: requests %d, total %d, rows %+v; want %d requests, 1e9 total, the top row %s",
				tc.ref, tc.arg, tab.Requests, tab.Total, tab.Rows, tc.wantRequests, tc.wantTop)
		}
	}
}

// TestErrorsSayWhoseTheyAre checks which errors are the user's input
// (ErrInput: the cli exits 2) and which are not (exit 3).
func TestErrorsSayWhoseTheyAre(t *testing.T) {
	root := t.TempDir()
	dir := storedRun(t, root, nil)
	file := filepath.Join(dir, "profiles", "cpu.pb.gz")
	notProfile := filepath.Join(dir, "run.json")
	view := func(ref Ref, arg string, v func(*Source) error) error {
		src, err := ref.Resolve(arg)
		if err != nil {
			return err
		}
		return v(src)
	}
	top := func(s *Source) error { _, err := s.Top(TopOptions{}); return err }
	list := func(s *Source) error { _, err := s.List("nosuchfunction", ListOptions{}); return err }
	flame := func(s *Source) error {
		f, err := s.Flame(0)
		if err != nil {
			return err
		}
		return f.WriteHTML(&bytes.Buffer{})
	}
	export := func(s *Source) error { _, err := s.Export("perflab test"); return err }
	for _, tc := range []struct {
		name  string
		err   error
		input bool
		want  string
	}{
		{"allocs and wall", view(Ref{Allocs: true, Wall: true}, file, top), true, "give either --allocs or --wall, not both"},
		{"allocs of a file", view(Ref{Allocs: true}, file, top), true, "is a profile file, not a run"},
		{"no such run", view(Ref{Root: root}, "nosuchrun", top), true, "nosuchrun: not a profile file, and not a run in " + root},
		{"a run without the profile", view(Ref{Root: root, Wall: true}, "latest", top), false, "run 20260101-120000-search has no wall profile"},
		{"wall of a profile", view(Ref{Wall: true}, file, top), true, "--wall: " + file + ": "},
		{"top of a non-profile", view(Ref{}, notProfile, top), true, "reading profile " + notProfile},
		{"top of a missing sample type", view(Ref{Sample: "alloc_space"}, file, top), true, `"alloc_space" not in profile`},
		{"list without a match", view(Ref{Root: root}, "latest", list), true, `20260101-120000-search: cpu (pprof): no function matches "nosuchfunction"`},
		{"flame of a non-profile", view(Ref{}, notProfile, flame), true, "reading profile " + notProfile},
		{"flame of a missing sample type", view(Ref{Sample: "alloc_space"}, file, flame), true, `"alloc_space" not in profile`},
		{"export of a non-profile", view(Ref{}, notProfile, export), true, "reading profile " + notProfile + ": decoding profile"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error; want %q", tc.name, tc.want)
			continue
		}
		if !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %q; want it to hold %q", tc.name, tc.err, tc.want)
		}
		if got := errors.Is(tc.err, ErrInput); got != tc.input {
			t.Errorf("%s: %q: errors.Is(ErrInput) = %t, want %t", tc.name, tc.err, got, tc.input)
		}
	}
}

func TestFlameAndExportsWrite(t *testing.T) {
	root := t.TempDir()
	storedRun(t, root, nil)
	src, err := Ref{Root: root}.Resolve("latest")
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Flame(-1)
	if err != nil {
		t.Fatal(err)
	}
	var page, folded, speedscope bytes.Buffer
	if err := f.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	e, err := src.Export("perflab test")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.WriteCollapsed(&folded); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteSpeedscope(&speedscope); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		out  *bytes.Buffer
		want string
	}{
		{"page", &page, "20260101-120000-search: cpu (pprof)"},
		{"collapsed", &folded, "net/http.(*conn).serve;main.search;strings.ToLower 800000000\n"},
		{"speedscope", &speedscope, `"exporter":"perflab test"`},
	} {
		if !strings.Contains(c.out.String(), c.want) {
			t.Errorf("%s lacks %q:\n%.2000s", c.name, c.want, c.out)
		}
	}
}

func TestCPUTops(t *testing.T) {
	root := t.TempDir()
	dir := storedRun(t, root, nil)
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	tops, err := CPUTops(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	if tab := tops["profiles/cpu.pb.gz"]; tab == nil || !tab.User || len(tab.Rows) == 0 || tab.Rows[0].Function != "main.search" {
		t.Errorf("CPUTops = %+v; want the user-code table of profiles/cpu.pb.gz, main.search first", tops)
	}
	for _, pr := range []*runfmt.Profiling{
		{Unrepresentative: &runfmt.Unrepresentative{Samples: 100}},
		{NotRepresentative: "the profile holds a tenth of the CPU measured"}, // before schema 5
	} {
		r.Profiling = pr
		if tops, err := CPUTops(r, dir); err != nil || len(tops) != 0 {
			t.Errorf("CPUTops of a profile that does not explain the CPU (%+v) = %v, %v; want none", pr, tops, err)
		}
	}
}
