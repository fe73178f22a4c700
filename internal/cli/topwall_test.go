package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTopWallOfATrace: perflab top --wall reads a Go execution trace file
// into the time of its request goroutines by stack; a file that is not a
// trace, or --wall with --allocs, is bad input (exit 2, one line).
func TestTopWallOfATrace(t *testing.T) {
	trace, _ := filepath.Abs("../walltime/testdata/sleep.trace")
	code, stdout, stderr := perflab(t, "top", "--wall", "--user", "-n", "5", trace)
	if code != 0 || !strings.Contains(stdout, "Type: wall") || !strings.Contains(stdout, "sleepHandler") {
		t.Errorf("top --wall: exit %d, stdout %q, stderr %q; want the wall-time table naming sleepHandler", code, stdout, stderr)
	}
	code, stdout, _ = perflab(t, "top", "--wall", "--sample", "sleep", trace)
	if code != 0 || !strings.Contains(stdout, "Type: sleep") || !strings.Contains(stdout, "time.Sleep") {
		t.Errorf("top --wall --sample sleep: exit %d, stdout %q; want time.Sleep", code, stdout)
	}
	notTrace := filepath.Join(t.TempDir(), "x.out")
	os.WriteFile(notTrace, []byte("hello"), 0o644)
	for _, args := range [][]string{{"top", "--wall", notTrace}, {"top", "--wall", "--allocs", trace},
		{"run", "--trace", "--no-trace", "http://127.0.0.1:1/", "--", "true"}} {
		code, _, stderr := perflab(t, args...)
		if code != int(ExitUsage) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("perflab %q: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
	}
}

// TestTopWallRefusesAFIFO: a FIFO named as the trace is refused at once
// (files.Open), not read: nobody writes to it, so reading would block.
func TestTopWallRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.out")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := perflab(t, "top", "--wall", fifo)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		if r.code == 0 || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("top --wall FIFO: exit %d, stderr %q; want an error saying it is not a regular file", r.code, r.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("top --wall FIFO still reading after a minute: it opened the FIFO and waits for a writer")
	}
}
