package capture

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPySpyRecord(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("py-spy"); err != nil {
		t.Skip("py-spy not installed (pip install py-spy)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	script := filepath.Join(t.TempDir(), "busy.py")
	// The loop ends by itself after 20 s if the test fails to kill it.
	src := "import time\ndef perflab_py_hot(n):\n    s = 0\n    for i in range(n): s += i * i\n    return s\n" +
		"end = time.time() + 30\nprint('hot', flush=True)\nwhile time.time() < end: perflab_py_hot(100000)\n"
	if err := writeFile(script, src); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBusy(t, cmd)
	waitLine(t, out, "hot", 20*time.Second) // in the loop: not a guess at start-up time
	p, err := PySpyRecord(context.Background(), cmd.Process.Pid, 1, 100)
	if err != nil {
		t.Fatalf("PySpyRecord: %v", err)
	}
	if n := totalSamples(p.Sample); n < 10 || !hasFunction(p, "perflab_py_hot") {
		t.Fatalf("py-spy profile: %d samples, perflab_py_hot found: %t; want both", n, hasFunction(p, "perflab_py_hot"))
	}
	if err := p.CheckValid(); err != nil {
		t.Errorf("py-spy profile invalid: %v", err)
	}
	_, err = PySpyRecord(context.Background(), 1<<22, 1, 100)
	if !errors.Is(err, ErrProcessGone) {
		t.Errorf("PySpyRecord(missing pid) = %v; want ErrProcessGone", err)
	}
}

func TestSpyMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := PySpyRecord(context.Background(), 1, 1, 100)
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "py-spy is not installed: pip install py-spy to get Python frames") {
		t.Errorf("PySpyRecord without py-spy = %v; want the install hint", err)
	}
	_, err = RbSpyRecord(context.Background(), 1, 1, 100)
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "rbspy is not installed") {
		t.Errorf("RbSpyRecord without rbspy = %v; want the install hint", err)
	}
}

func TestRbSpyRecord(t *testing.T) {
	if _, err := exec.LookPath("rbspy"); err != nil {
		t.Skip("rbspy not installed (cargo install rbspy)")
	}
	rb, err := exec.LookPath("ruby")
	if err != nil {
		t.Skip("ruby not installed")
	}
	home := t.TempDir() // where rbspy would keep a copy of each recording
	t.Setenv("HOME", home)
	// The recording starts once Ruby has booted and entered the loop (it
	// says so), not after a guess at its start-up time: from then on every
	// sample, however little CPU a busy machine gives Ruby, is in the loop.
	cmd := exec.Command(rb, "-e", "def perflab_rb_hot; s = 0; 100000.times { |i| s += i }; s; end; $stdout.sync = true; t = Time.now + 30; puts 'hot'; perflab_rb_hot while Time.now < t")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBusy(t, cmd)
	waitLine(t, out, "hot", 20*time.Second)
	p, err := RbSpyRecord(context.Background(), cmd.Process.Pid, 1, 100)
	if err != nil {
		t.Fatalf("RbSpyRecord: %v", err)
	}
	if !hasFunction(p, "perflab_rb_hot") {
		t.Fatalf("rbspy profile of %d samples lacks perflab_rb_hot", totalSamples(p.Sample))
	}
	if entries, err := os.ReadDir(filepath.Join(home, ".cache", "rbspy")); err == nil {
		t.Errorf("rbspy left %d recordings in ~/.cache/rbspy; want them in the temporary directory only", len(entries))
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
	w := &watchWriter{w: &out, needle: []byte(pySpySampling), found: func() { calls++ }}
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
