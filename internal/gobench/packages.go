package gobench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"perflab/internal/files"
)

// ErrInput is wrapped by the errors that come from what the user gave: a
// package that does not exist, a package without benchmarks, a -bench
// that matches none.
var ErrInput = errors.New("bad input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// Package is one package to benchmark, as go list describes it.
type Package struct {
	ImportPath string
	Dir        string
	// Module is the path of its module ("" outside modules).
	Module string
	// TestFiles are its _test.go files (both test packages), absolute.
	TestFiles []string
	// External are the benchmarks defined in the external test package
	// (package x_test), whose functions are named after it.
	External map[string]bool
	// Benchmarks are the names of its top-level benchmark functions.
	Benchmarks []string
}

// listTimeout bounds go list (it reads the module's files, and may fetch
// nothing: -mod and GOFLAGS are the user's).
const listTimeout = 2 * time.Minute

// maxListOutput bounds what perflab reads of go list's JSON.
const maxListOutput = 64 << 20

// listed is what go list -json writes per package.
type listed struct {
	ImportPath   string
	Dir          string
	Module       *struct{ Path string }
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }
}

// ListPackages resolves the package patterns in dir with go list. A
// pattern that matches nothing, or names a directory that is no package,
// is bad input.
func ListPackages(ctx context.Context, dir string, patterns []string) ([]Package, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,Module,GoFiles,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, goCommand, args...)
	cmd.Dir = dir
	stderr := files.NewTail(maxOutputTail)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var pkgs []listed
	var decErr error
	werr := childOf(cmd, func() error {
		if err := cmd.Start(); err != nil {
			return err
		}
		pkgs, decErr = decodeListed(io.LimitReader(out, maxListOutput))
		return cmd.Wait()
	})
	if cmd.Process == nil {
		return nil, fmt.Errorf("go list: %w (is Go installed?)", werr)
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), ctx.Err())
	case werr != nil:
		return nil, inputErr("go list %s: %s", strings.Join(patterns, " "), firstLine(stderr.String(), werr))
	case decErr != nil:
		return nil, fmt.Errorf("reading go list's output: %w", decErr)
	case len(pkgs) == 0:
		return nil, inputErr("%s matched no packages", strings.Join(patterns, " "))
	}
	return toPackages(pkgs)
}

func decodeListed(r io.Reader) ([]listed, error) {
	dec := json.NewDecoder(r)
	var out []listed
	for {
		var l listed
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
}

// toPackages keeps the packages that exist; one that go list could not
// find is bad input (a package that exists but does not compile is for the
// build to report, with the compiler's output).
func toPackages(ls []listed) ([]Package, error) {
	var out []Package
	for _, l := range ls {
		if l.Error != nil && l.Dir == "" || l.Error != nil && len(l.GoFiles)+len(l.TestGoFiles)+len(l.XTestGoFiles) == 0 {
			return nil, inputErr("package %s: %s", l.ImportPath, oneLine(l.Error.Err))
		}
		p := Package{ImportPath: l.ImportPath, Dir: l.Dir}
		if l.Module != nil {
			p.Module = l.Module.Path
		}
		for _, f := range l.TestGoFiles {
			p.TestFiles = append(p.TestFiles, joinDir(l.Dir, f))
		}
		ext := map[string]bool{}
		for _, f := range l.XTestGoFiles {
			p.TestFiles = append(p.TestFiles, joinDir(l.Dir, f))
			ext[joinDir(l.Dir, f)] = true
		}
		if err := p.findBenchmarks(ext); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}
