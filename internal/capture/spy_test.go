package capture

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// fakeSpy is a py-spy that writes the collapsed stacks of lines to the
// file after --output, or exits with status 3 saying so when lines is "".
func fakeSpy(t *testing.T, lines string) SpyTool {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=$2; shift; done\n"
	if lines == "" {
		script += "echo 'Error: no such process' >&2; exit 3\n"
	} else {
		script += "printf '" + lines + "' > \"$out\"\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "py-spy"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	return SpyTool{Name: runfmt.ProfilerPySpy, Install: "pip install py-spy", Lang: "Python",
		Args: func(cfg SpyConfig, secs, rate int, out string) []string {
			return []string{"record", "--pid", strconv.Itoa(cfg.PID), "--output", out}
		}}
}

// TestRecordSpyReadsWhatTheToolWrote runs a profiler (a script in py-spy's
// place) and reads its collapsed stacks, with its own CPU time; one that
// fails is explained from what it printed.
func TestRecordSpyReadsWhatTheToolWrote(t *testing.T) {
	var used time.Duration
	started := 0
	p, err := RecordSpy(context.Background(), fakeSpy(t, "main;serve;hot 5\\nmain;idle 2\\n"),
		SpyConfig{PID: os.Getpid(), Seconds: 1, Rate: 10, CPUUsed: &used, OnStart: func(int) { started++ }})
	if err != nil {
		t.Fatalf("RecordSpy: %v", err)
	}
	if n := totalSamples(p.Sample); n != 7 || !hasFunction(p, "hot") || started != 1 {
		t.Errorf("%d samples, hot found %t, OnStart called %d times; want 7, true, once", n, hasFunction(p, "hot"), started)
	}
	_, err = RecordSpy(context.Background(), fakeSpy(t, ""), SpyConfig{PID: 1 << 22, Seconds: 1})
	if !errors.Is(err, ErrProcessGone) {
		t.Errorf("RecordSpy(a tool that says no such process) = %v; want ErrProcessGone", err)
	}
}

func TestSpyMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	tool := SpyTool{Name: runfmt.ProfilerPySpy, Install: "pip install py-spy", Lang: "Python"}
	_, err := RecordSpy(context.Background(), tool, SpyConfig{PID: 1, Seconds: 1, Rate: 100})
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "py-spy is not installed: pip install py-spy to get Python frames") {
		t.Errorf("RecordSpy without py-spy = %v; want the install hint", err)
	}
}

// waitLine waits until r yields the line want, within timeout.
func waitLine(t *testing.T, r io.Reader, want string, timeout time.Duration) {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == want {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatalf("the process ended its output without printing %q", want)
		}
	case <-time.After(timeout):
		t.Fatalf("no %q line within %s", want, timeout)
	}
}

func TestWatchWriterFindsTheLineOnce(t *testing.T) {
	var out bytes.Buffer
	calls := 0
	w := &watchWriter{w: &out, needle: []byte(PySpySampling), found: func() { calls++ }}
	// py-spy's line, cut in two between writes, then said again.
	for _, s := range []string{"Collecting... ", "Samp", "ling process 19 times a second.\n", "Sampling process\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if calls != 1 {
		t.Errorf("found called %d times; want once", calls)
	}
	if !strings.Contains(out.String(), "Sampling process 19 times") {
		t.Errorf("output %q: the writes must pass through", out.String())
	}
}
