package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// writeCPUProfile writes a small CPU profile (user code main.search calling
// strings.ToLower) to path.
func writeCPUProfile(t *testing.T, path string) {
	t.Helper()
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name}
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
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// storedRun writes a run with 1000 requests and a CPU profile into root.
func storedRun(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "20260101-120000-tolower")
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeCPUProfile(t, filepath.Join(dir, "profiles", "cpu.pb.gz"))
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "tolower", ID: "20260101-120000-tolower", Status: runfmt.StatusComplete,
		Load:     &runfmt.LoadResult{Requests: 1000, DurationS: 1},
		Profiles: []runfmt.ProfileRef{{Type: "cpu", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz"}}}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTopProfileAndRun(t *testing.T) {
	root := t.TempDir()
	dir := storedRun(t, root)
	prof := filepath.Join(dir, "profiles", "cpu.pb.gz")
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"top", prof}, []string{"Type: cpu", "of 1s total", "800ms 80.00%", "strings.ToLower"}, []string{"flat/req"}},
		{[]string{"top", "--cum", "-n", "1", prof}, []string{"Showing top 1 functions out of 3", "net/http.(*conn).serve"}, []string{"strings.ToLower"}},
		{[]string{"top", "--dir", root, "latest"}, []string{"(1000 requests)", "flat/req", "800µs"}, nil},
		{[]string{"top", "--user", dir}, []string{"main.search", "(100% in callees outside user code)"}, []string{" strings.ToLower"}},
		{[]string{"top", "--requests", "10", prof}, []string{"(10 requests)", "80ms"}, nil},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		if code != 0 {
			t.Errorf("perflab %q: exit %d: %s", tc.args, code, stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("perflab %q lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(stdout, w) {
				t.Errorf("perflab %q has %q:\n%s", tc.args, w, stdout)
			}
		}
	}
}

func TestTopFlameBadInput(t *testing.T) {
	root := t.TempDir()
	dir := storedRun(t, root)
	garbage := filepath.Join(root, "garbage.pb.gz")
	os.WriteFile(garbage, []byte("\x1f\x8b\x08 not really gzip"), 0o644)
	for _, tc := range []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"top", "--dir", root, "nope"}, ExitUsage, "not a profile file, and not a run"},
		{[]string{"top", "--allocs", dir}, ExitFailed, "has no allocs profile"},
		{[]string{"top", "-n", "-1", dir}, ExitUsage, "--nodes -1"},
		{[]string{"top", garbage}, ExitUsage, "garbage.pb.gz"},
		{[]string{"top", "--sample", "bogus", dir}, ExitUsage, "bogus"},
		{[]string{"flame", dir}, ExitUsage, "-o FILE.html"},
		{[]string{"flame", garbage, "-o", filepath.Join(root, "x.html")}, ExitUsage, "garbage.pb.gz"},
		{[]string{"profile"}, ExitUsage, "nothing to profile"},
		{[]string{"profile", "--pid", "1", "--", "true"}, ExitUsage, "either --pid or -- CMD"},
		{[]string{"profile", "--pprof", "http://127.0.0.1:1", "--seconds", "0"}, ExitUsage, "--seconds 0: must be from 0.001 to 3600"},
		{[]string{"profile", "--profiler", "perf", "--pprof", "http://127.0.0.1:1"}, ExitUsage, "give --pid PID or -- CMD"},
		{[]string{"profile", "--cpus", "1", "--pid", "1"}, ExitUsage, "--cpus and --memory"},
		{[]string{"profile", "http://127.0.0.1:1/"}, ExitUsage, "unexpected argument"},
	} {
		code, _, stderr := perflab(t, tc.args...)
		if ExitCode(code) != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("perflab %q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x.html")); err == nil {
		t.Error("a failed flame left its output file behind")
	}
}

func TestFlameWritesPage(t *testing.T) {
	root := t.TempDir()
	storedRun(t, root)
	out := filepath.Join(root, "flame.html")
	code, _, stderr := perflab(t, "flame", "--dir", root, "latest", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", "20260101-120000-tolower: cpu (pprof)", `"requests":1000`, "main.search", "strings.ToLower"} {
		if !strings.Contains(page, want) {
			t.Errorf("flame page lacks %q", want)
		}
	}
}

// TestProfileFromPprofEndpoint captures from a real net/http/pprof endpoint
// while a goroutine keeps the process busy.
func TestProfileFromPprofEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("captures a 1s CPU profile")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var sink atomic.Int64
	go func() {
		for ctx.Err() == nil {
			for i := range 100000 {
				sink.Add(int64(i))
			}
		}
	}()
	root := t.TempDir()
	code, stdout, stderr := perflab(t, "profile", "--pprof", srv.URL, "--seconds", "1", "--dir", root, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"Top user-code functions (pprof", "Run ", ": complete", "profiles/cpu.pb.gz"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(root, "*-profile"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v; want one *-profile", runs)
	}
	r, err := runfmt.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != runfmt.StatusComplete || r.Load != nil || len(r.Hot) == 0 {
		t.Errorf("status %s, load %v, %d hot functions; want a complete run without load, with hot functions", r.Status, r.Load, len(r.Hot))
	}
	if _, err := os.Stat(filepath.Join(runs[0], "report.html")); err != nil {
		t.Errorf("report.html: %v", err)
	}
	code, stdout, _ = perflab(t, "top", "--dir", root, "latest")
	if code != 0 || !strings.Contains(stdout, "Type: cpu") {
		t.Errorf("top of the captured run: exit %d\n%s", code, stdout)
	}
}
