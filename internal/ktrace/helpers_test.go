package ktrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
)

// The test binary doubles as the measured services: run with
// KTRACE_HELPER=name it runs helpers[name] instead of the tests, in its
// own process, and exits.
func TestMain(m *testing.M) {
	if name := os.Getenv("KTRACE_HELPER"); name != "" {
		run, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no helper %q\n", name)
			os.Exit(2)
		}
		if err := run(); err != nil {
			fmt.Fprintf(os.Stderr, "helper %s: %v\n", name, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helpers are the services the tests measure, each run in a process of its
// own (see TestMain). Each prints one line when ready, then serves until
// its standard input closes.
var helpers = map[string]func() error{}

// proc is a helper process or script started by a test.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

// startHelper runs helper name of this test binary with env added, and
// returns it once it printed its first line (returned too).
func startHelper(t *testing.T, name string, env ...string) (*proc, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "KTRACE_HELPER="+name), env...)
	return startProc(t, cmd)
}

// startPython runs a python3 script, returned once it printed a line.
func startPython(t *testing.T, script string, args ...string) (*proc, string) {
	t.Helper()
	labtest.NeedTool(t, "python3", "")
	return startProc(t, exec.Command("python3", append([]string{"-c", script}, args...)...))
}

func startProc(t *testing.T, cmd *exec.Cmd) (*proc, string) {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return p, p.line(t)
}

// line returns the process's next line of output, waiting at most 30 s.
func (p *proc) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatalf("%s exited before printing", p.cmd.Path)
		}
		return l
	case <-time.After(30 * time.Second):
		t.Fatalf("%s printed nothing in 30 s", p.cmd.Path)
	}
	return ""
}

// say writes a line to the process's standard input.
func (p *proc) say(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
		t.Fatal(err)
	}
}

// untilStdinCloses blocks a helper until the test closes its input.
func untilStdinCloses() {
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startSession starts a session for cfg, closed at the test's end.
func startSession(t *testing.T, cfg Config) *Session {
	t.Helper()
	labtest.RequireRoot(t, "loading kernel programs")
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func read(t *testing.T, s *Session) Totals {
	t.Helper()
	tot, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	return tot
}

// within fails the test unless got is within tol (0.15: 15%) of want.
func within(t *testing.T, what string, got, want time.Duration, tol float64) {
	t.Helper()
	t.Logf("%s: %v (expected %v)", what, got, want)
	if want <= 0 || math.Abs(float64(got-want))/float64(want) > tol {
		t.Errorf("%s = %v, want %v ± %.0f%%", what, got, want, tol*100)
	}
}

// monotonic is CLOCK_MONOTONIC, the kernel programs' clock, comparable
// across processes.
func monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// fields splits a helper's output line.
func fields(s string) []string { return strings.Fields(s) }

// stack returns the user stack recorded under id (Wait.Stack), innermost
// frame first, as instruction addresses in the process's address space.
// Nothing in perflab symbolizes them yet: only the tests read them.
func (s *Session) stack(id int32) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return nil, errors.New("ktrace: session closed")
	}
	var frames [127]uint64
	if err := s.maps["stacks"].Lookup(uint32(id), &frames); err != nil {
		return nil, fmt.Errorf("ktrace: stack %d: %w", id, err)
	}
	n := 0
	for n < len(frames) && frames[n] != 0 {
		n++
	}
	return frames[:n], nil
}
