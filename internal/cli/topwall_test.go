package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
