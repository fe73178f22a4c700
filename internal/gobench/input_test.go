package gobench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// module writes a module example.com/m of the given files into a
// temporary directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBadPackages(t *testing.T) {
	dir := module(t, map[string]string{
		"nobench/a.go":      "package nobench\n",
		"nobench/a_test.go": "package nobench\nimport \"testing\"\nfunc TestA(t *testing.T) {}\n",
		"notest/a.go":       "package notest\n",
		"ok/a_test.go":      "package ok\nimport \"testing\"\nfunc BenchmarkA(b *testing.B) { for b.Loop() {} }\n",
		"broken/a_test.go":  "package broken\nimport \"testing\"\nfunc BenchmarkA(b *testing.B) { nosuch() }\n",
	})
	for _, tc := range []struct {
		pkgs    []string
		pattern string
		want    string
		build   bool
	}{
		{[]string{"./nope"}, ".", "nope", false},
		{[]string{"./nobench"}, ".", "example.com/m/nobench has no benchmarks", false},
		{[]string{"./notest"}, ".", "example.com/m/notest has no benchmarks", false},
		{[]string{"./ok"}, "NoSuch", `example.com/m/ok: no benchmark matches -bench "NoSuch" (it has BenchmarkA)`, false},
		{[]string{"./ok", "./nobench"}, ".", "nobench has no benchmarks", false},
		{[]string{"./broken"}, ".", "undefined: nosuch", true},
	} {
		_, err := Run(context.Background(), Config{Dir: dir, Packages: tc.pkgs, Flags: Flags{Pattern: tc.pattern, Count: 1, Benchtime: "1x"},
			Store: store.Store{Root: t.TempDir()}})
		var be *BuildError
		switch {
		case tc.build && (!errors.As(err, &be) || !strings.Contains(be.Output, tc.want)):
			t.Errorf("%v: %v; want a build error with the compiler's %q", tc.pkgs, err, tc.want)
		case !tc.build && (!errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v -bench %s: %v; want bad input naming %q", tc.pkgs, tc.pattern, err, tc.want)
		}
	}
	// ./... brings in packages without benchmarks: they are left out.
	res, err := Run(context.Background(), Config{Dir: dir, Packages: []string{"./ok/...", "./nobench/..."}, Flags: Flags{Pattern: ".", Count: 1, Benchtime: "1x"},
		NoProfiles: true, Store: store.Store{Root: t.TempDir()}})
	if err != nil || len(res.Run.Bench.Benchmarks) != 1 {
		t.Errorf("./...: %v, %+v; want ok's benchmark alone", err, res)
	}
}

// TestInterruptKeepsWhatCompleted: Ctrl-C during the timed runs stops the
// benchmark under way; the run is written as partial with the results
// that completed.
func TestInterruptKeepsWhatCompleted(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "slow-started")
	dir := module(t, map[string]string{"slow/a_test.go": `package slow
import ("os"; "testing"; "time")
func BenchmarkFast(b *testing.B) { for b.Loop() {} }
func BenchmarkSlow(b *testing.B) {
	os.WriteFile(os.Getenv("PERFLAB_TEST_MARKER"), nil, 0o644)
	time.Sleep(time.Hour) // planted: the benchmark hangs
}
`})
	t.Setenv("PERFLAB_TEST_MARKER", marker)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if labtest.Until(2*time.Minute, func() bool { _, err := os.Stat(marker); return err == nil }) {
			cancel()
		}
	}()
	root := t.TempDir()
	res, err := Run(ctx, Config{Dir: dir, Packages: []string{"./slow"}, Flags: Flags{Pattern: ".", Count: 1, Benchtime: "100x"}, Store: store.Store{Root: root}})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run = %+v, %v; want the partial run and context.Canceled", res, err)
	}
	r, rerr := runfmt.ReadFile(res.Dir)
	if rerr != nil || r.Status != runfmt.StatusPartial || len(r.Bench.Benchmarks) != 1 || r.Bench.Benchmarks[0].Name != "Fast" && !strings.HasPrefix(r.Bench.Benchmarks[0].Name, "Fast-") {
		t.Fatalf("stored run %+v, %v; want partial with BenchmarkFast's result", r, rerr)
	}
	if !strings.Contains(r.PartialReason, "interrupted") {
		t.Errorf("partial reason %q", r.PartialReason)
	}
}

// TestFailingBenchmark: a benchmark that fails ends the timed runs with
// its output; the results before it are kept in a partial run.
func TestFailingBenchmark(t *testing.T) {
	dir := module(t, map[string]string{"fails/a_test.go": `package fails
import "testing"
func BenchmarkA(b *testing.B) { for b.Loop() {} }
func BenchmarkB(b *testing.B) { b.Fatal("the fixture is missing") }
`})
	res, err := Run(context.Background(), Config{Dir: dir, Packages: []string{"./fails"}, Flags: Flags{Pattern: ".", Count: 1, Benchtime: "100x"}, Store: store.Store{Root: t.TempDir()}})
	var re *RunError
	if !errors.As(err, &re) || !strings.Contains(re.Output, "the fixture is missing") || res == nil {
		t.Fatalf("Run = %+v, %v; want a RunError with the benchmark's message", res, err)
	}
	if r := res.Run; r.Status != runfmt.StatusPartial || len(r.Bench.Benchmarks) != 1 || !strings.HasPrefix(r.Bench.Benchmarks[0].Name, "A") {
		t.Errorf("run %s with %+v; want partial with BenchmarkA's result", r.Status, r.Bench.Benchmarks)
	}
}
