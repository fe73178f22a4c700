package gobench

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"perflab/internal/files"
)

// goCommand is the go command, which builds and lists packages.
const goCommand = "go"

// BuildError is a package whose test binary did not build; Output is the
// end of what the compiler printed.
type BuildError struct {
	Package string
	// Side is the revision's side ("base", "new") with --git, else "".
	Side   string
	Err    error
	Output string
}

func (e *BuildError) Error() string {
	side := ""
	if e.Side != "" {
		side = " (" + e.Side + ")"
	}
	return fmt.Sprintf("building the tests of %s%s failed: %v", e.Package, side, e.Err)
}

func (e *BuildError) Unwrap() error { return e.Err }

// buildTimeout bounds one go test -c.
const buildTimeout = 10 * time.Minute

// Binary is a package's test binary.
type Binary struct {
	Pkg  *Package
	Path string
}

// Build compiles p's test binary into dir with go test -c. The binary's
// name is the package's (its directory and import path), so a package
// built before into the same dir and unchanged since is not linked again:
// go test -c leaves a target whose build ID is current as it is.
func Build(ctx context.Context, p *Package, dir string) (*Binary, error) {
	sum := sha256.Sum256([]byte(p.Dir + "\x00" + p.ImportPath))
	out := filepath.Join(dir, fmt.Sprintf("%s-%x.test", filepath.Base(p.ImportPath), sum[:8]))
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCommand, "test", "-c", "-o", out, "--", p.ImportPath)
	cmd.Dir = p.Dir
	tail := files.NewTail(maxOutputTail)
	cmd.Stdout, cmd.Stderr = tail, tail
	err := childOf(cmd, cmd.Run)
	switch {
	case err == nil:
		if _, serr := os.Stat(out); serr != nil {
			return nil, &BuildError{Package: p.ImportPath, Err: errors.New("go test -c wrote no binary (no test files?)"), Output: tail.String()}
		}
		return &Binary{Pkg: p, Path: out}, nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", buildTimeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, &BuildError{Package: p.ImportPath, Err: err, Output: tail.String()}
}

// Flags are go test's benchmark flags, as the test binary takes them.
type Flags struct {
	// Pattern is -bench; Count -count; Benchtime -benchtime ("1s",
	// "1000x"); CPU -cpu ("1,2,4"); Timeout -timeout (0: none).
	Pattern   string
	Count     int
	Benchtime string
	CPU       string
	Timeout   time.Duration
}

// args are the test binary's arguments: no tests, only benchmarks, with
// their allocations.
func (f Flags) args() []string {
	a := []string{"-test.run=^$", "-test.bench=" + f.Pattern, "-test.benchmem", "-test.count=" + strconv.Itoa(max(1, f.Count)),
		"-test.timeout=" + f.Timeout.String()}
	if f.Benchtime != "" {
		a = append(a, "-test.benchtime="+f.Benchtime)
	}
	if f.CPU != "" {
		a = append(a, "-test.cpu="+f.CPU)
	}
	return a
}

// RunError is a test binary that failed (a benchmark called b.Fatal,
// panicked or timed out); Output is the end of what it printed.
type RunError struct {
	Package string
	Err     error
	Output  string
}

func (e *RunError) Error() string {
	return fmt.Sprintf("the benchmarks of %s failed: %v", e.Package, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// Run runs the binary in its package's directory (as go test does) with
// args and parses what it prints. Cancelling ctx kills it; the results it
// printed before are returned with ctx's error. A binary that runs longer
// than timeout (0: no limit) is stopped by perflab, since the testing
// package applies -test.timeout to tests and not to benchmarks: it gets
// SIGQUIT, so that the Go runtime prints every goroutine's stack (which
// says the benchmark it was in), and SIGKILL waitDelay later. The error is
// then a *RunError whose Err is a *TimeoutError.
func (b *Binary) Run(ctx context.Context, args []string, timeout time.Duration) (*Parsed, error) {
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(rctx, b.Path, args...)
	cmd.Dir = b.Pkg.Dir
	tail := files.NewTail(maxOutputTail)
	dump := &quitDump{max: maxQuitDump}
	cmd.Stderr = io.MultiWriter(tail, dump)
	var quit atomic.Bool // the binary got SIGQUIT at the timeout
	cmd.Cancel = func() error {
		if ctx.Err() != nil {
			return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		dump.arm()
		err := cmd.Process.Signal(syscall.SIGQUIT)
		quit.Store(err == nil)
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var p *Parsed
	var perr error
	var last lastLine
	werr := childOf(cmd, func() error {
		if err := cmd.Start(); err != nil {
			return err
		}
		p, perr = Parse(newLineCap(io.TeeReader(stdout, io.MultiWriter(tail, &last))))
		_, _ = io.Copy(io.Discard, stdout) // after a read error, let the binary finish
		return cmd.Wait()
	})
	killGroup(cmd)
	switch {
	case cmd.Process == nil:
		return nil, fmt.Errorf("starting the test binary of %s: %w", b.Pkg.ImportPath, werr)
	case ctx.Err() != nil:
		return p, ctx.Err()
	case quit.Load() && werr != nil:
		te := hung(b.Pkg.ImportPath, dump.String(), last.String())
		te.Timeout = timeout
		return p, &RunError{Package: b.Pkg.ImportPath, Err: te, Output: te.Stack}
	case werr != nil:
		return p, &RunError{Package: b.Pkg.ImportPath, Err: werr, Output: strings.TrimRight(tail.String(), "\n")}
	case perr != nil:
		return p, fmt.Errorf("reading the output of the benchmarks of %s: %w", b.Pkg.ImportPath, perr)
	}
	return p, nil
}
