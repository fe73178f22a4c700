package gobench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestTimeoutStopsAHungBenchmark: a benchmark that never ends is stopped
// at --timeout (Go's own -test.timeout is off for benchmarks), the error
// names it, the test binary is gone, and the results before it are kept
// in a partial run.
func TestTimeoutStopsAHungBenchmark(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("PERFLAB_TEST_PID", pidFile)
	dir := module(t, map[string]string{"hang/a_test.go": `package hang
import ("os"; "strconv"; "testing"; "time")
func BenchmarkFast(b *testing.B) { for b.Loop() {} }
func BenchmarkHang(b *testing.B) {
	os.WriteFile(os.Getenv("PERFLAB_TEST_PID"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	for {
		time.Sleep(time.Second) // planted: the benchmark never ends
	}
}
`})
	const timeout = 3 * time.Second
	// What bounds this test is the build of the test binary; the binary
	// itself must be stopped at the timeout and gone within waitDelay.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Dir: dir, Packages: []string{"./hang"}, Flags: Flags{Pattern: ".", Count: 1, Benchtime: "100x", Timeout: timeout},
		Store: store.Store{Root: t.TempDir()}})
	var re *RunError
	var te *TimeoutError
	if ctx.Err() != nil || !errors.As(err, &re) || !errors.As(err, &te) {
		t.Fatalf("Run = %v (ctx %v); want a RunError with a TimeoutError", err, ctx.Err())
	}
	if te.Benchmark != "BenchmarkHang" || te.Timeout != timeout || !strings.Contains(err.Error(), "BenchmarkHang ran past --timeout 3s") {
		t.Errorf("error %q, benchmark %q; want BenchmarkHang named with the timeout", err, te.Benchmark)
	}
	if !strings.Contains(te.Stack, "example.com/m/hang.BenchmarkHang") || !strings.Contains(te.Stack, "a_test.go:") || strings.Contains(te.Stack, " pc=0x") {
		t.Errorf("stack:\n%s\nwant BenchmarkHang's frame with its line, without the runtime's addresses", te.Stack)
	}
	b, rerr := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(b))
	if rerr != nil || pid <= 0 {
		t.Fatalf("the benchmark wrote no pid: %v", rerr)
	}
	if alive(pid) {
		t.Errorf("the test binary %d still runs after Run returned", pid)
	}
	if r := res.Run; r.Status != runfmt.StatusPartial || len(r.Bench.Benchmarks) != 1 || !strings.HasPrefix(r.Bench.Benchmarks[0].Name, "Fast") ||
		!strings.Contains(r.PartialReason, "BenchmarkHang ran past --timeout") {
		t.Errorf("run %s (%q) with %+v; want partial with BenchmarkFast's result and the reason", r.Status, r.PartialReason, r.Bench.Benchmarks)
	}
}

// alive says whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestHungNamesTheBenchmark reads goroutine dumps the Go runtime printed
// on SIGQUIT: a benchmark spinning in its first iteration (nothing printed
// yet: the stack names it), and a sub-benchmark in its timed loop (its
// printed name says which one; the goroutine in b.Run is passed over for
// the one running the sub-benchmark's code).
func TestHungNamesTheBenchmark(t *testing.T) {
	for _, tc := range []struct {
		file, pending, want, frame string
	}{
		{"spin.txt", "", "BenchmarkSpin", "example.com/m/hang.BenchmarkSpin(0x942b76c308?)"},
		{"sub.txt", "BenchmarkSub/inner-2         \t", "BenchmarkSub/inner-2", "example.com/m/hang.BenchmarkSub.func1("},
		{"sub.txt", "", "BenchmarkSub", "example.com/m/hang.BenchmarkSub.func1("},
		// A line of the benchmark's own log is not a name.
		{"spin.txt", "BenchmarkSpin: waiting for the lock", "BenchmarkSpin", "BenchmarkSpin("},
	} {
		dump, err := os.ReadFile(filepath.Join("testdata", "quit", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		te := hung("example.com/m/hang", string(dump), tc.pending)
		if te.Benchmark != tc.want || !strings.Contains(te.Stack, tc.frame) {
			t.Errorf("hung(%s, %q) = %q with stack\n%s\nwant %q and a stack with %q", tc.file, tc.pending, te.Benchmark, te.Stack, tc.want, tc.frame)
		}
	}
	if te := hung("example.com/other", "goroutine 1 [running]:\nexample.com/m/hang.BenchmarkSpin(0x1)\n\t/x.go:1\n", ""); te.Benchmark != "" {
		t.Errorf("another package's benchmark named: %q", te.Benchmark)
	}
}

// FuzzHung: any dump and pending line give a name that is empty or a
// benchmark's, and a stack of bounded length.
func FuzzHung(f *testing.F) {
	for _, name := range []string{"spin.txt", "sub.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "quit", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "BenchmarkSub/inner-2\t")
	}
	f.Fuzz(func(t *testing.T, dump, pending string) {
		te := hung("example.com/m/hang", dump, pending)
		if te.Benchmark != "" && !strings.HasPrefix(te.Benchmark, "Benchmark") {
			t.Errorf("named %q", te.Benchmark)
		}
		if n := strings.Count(te.Stack, "\n"); n > maxStackLines {
			t.Errorf("stack of %d lines", n)
		}
	})
}
