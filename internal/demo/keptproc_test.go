package demo

// A test service whose whole stdout is kept, for the services that print
// their planted cost (grpcapi's debug line, the stopwatches' exit lines)
// and for the Java and Node services, which print no pprof line.

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// moreServices are the Go test services of the request-ledger, ownership
// and batch smoke tests, built apart from goServices so that the gRPC
// modules compile only for the tests that use them.
var moreServices = &labtest.Services{Names: []string{"grpcapi", "grpccache", "rsscount"}}

// output is a process's stdout or stderr, safe to read while it grows.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // poked by every write
}

func newOutput() *output { return &output{changed: make(chan struct{}, 1)} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// line returns the text after prefix on the first line that starts with it.
func (o *output) line(prefix string) (string, bool) {
	for _, l := range strings.Split(o.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			return rest, true
		}
	}
	return "", false
}

// keptProc is a running test service with its output kept.
type keptProc struct {
	cmd         *exec.Cmd
	url, pprof  string
	out, stderr *output
	done        chan struct{} // closed when the process has exited
}

// startKept runs argv in dir ("" for the test's) and waits, at most
// startWait, for its "listening on " line, and for its "pprof on " line
// too when withPprof is set (the Go services).
func startKept(t *testing.T, dir string, withPprof bool, argv ...string) *keptProc {
	t.Helper()
	const startWait = 90 * time.Second // a JVM compiling Server.java on a busy machine
	p := &keptProc{cmd: exec.Command(argv[0], argv[1:]...), out: newOutput(), stderr: newOutput(), done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, p.out, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %q: %v", argv, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	deadline := time.After(startWait)
	for {
		url, ok := p.out.line("listening on ")
		pprof, pok := p.out.line("pprof on ")
		if ok && (pok || !withPprof) {
			p.url, p.pprof = url, pprof
			return p
		}
		select {
		case <-p.out.changed:
		case <-p.done:
			t.Fatalf("%q exited before it listened: %v\nstdout: %s\nstderr: %s", argv, p.cmd.ProcessState, p.out, p.stderr)
		case <-deadline:
			t.Fatalf("%q printed no \"listening on\" line within %v\nstdout: %s\nstderr: %s", argv, startWait, p.out, p.stderr)
		}
	}
}

// stop sends SIGTERM, waits at most 30 s for the exit and returns the
// exit code (-1 when a signal ended the process).
func (p *keptProc) stop(t *testing.T) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running 30s after SIGTERM", p.cmd.Path)
	}
	return p.cmd.ProcessState.ExitCode()
}

// waitsLine parses a stopwatch's exit line "NAME: N waits, mean X ms".
func waitsLine(t *testing.T, o *output, name string) (n int, meanMs float64) {
	t.Helper()
	rest, ok := o.line(name + ": ")
	if !ok {
		t.Fatalf("no %q line in the output:\n%.2000s", name, o)
	}
	if _, err := fmt.Sscanf(rest, "%d waits, mean %f ms", &n, &meanMs); err != nil {
		t.Fatalf("%s line %q: %v", name, rest, err)
	}
	return n, meanMs
}
