package pgo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
)

// ErrInput is a profile go build -pgo does not take: the service is not
// a Go program, or its CPU profile was not recorded by the Go runtime
// (runtime/pprof, served by net/http/pprof). errors.Is tells it from a
// profile that could not be read or written.
var ErrInput = errors.New("not a profile go build -pgo takes")

// pgoInputError is an ErrInput with its reason alone as its message.
type pgoInputError struct{ msg string }

func (e *pgoInputError) Error() string        { return e.msg }
func (e *pgoInputError) Is(target error) bool { return target == ErrInput }

func refusePGO(format string, args ...any) error {
	return &pgoInputError{msg: fmt.Sprintf(format, args...)}
}

// outsideReason is why a CPU profile perf (or py-spy, rbspy) recorded of
// a Go program cannot be used: cmd/compile reads each call edge as the
// caller's name, the callee's name and the call's line offset from the
// caller's first line (Function.start_line), which only the Go runtime's
// own profiles carry; it refuses a profile without start lines ("profile
// missing Function.start_line data").
const outsideReason = "samples taken from outside the Go runtime carry no source lines and no function start lines, which go build -pgo needs (it places each call by its line offset in the caller) and refuses a profile without"

// Check refuses, before any run, an experiment whose CPU profile go
// build -pgo could not take: a profiler other than the Go runtime's
// (--profiler perf, py-spy, rbspy or none), a --pid that runs an
// interpreter of another language (python, ruby, node, a JVM), or a command that starts an interpreter of another language
// (python3, ruby, node, java, or a script whose #! line names one). A
// command it cannot tell (a native wrapper such as sh or env) is let
// through: Write checks the profile the runs recorded.
func Check(c session.Config) error {
	switch p, one := c.Profiler.Profiler(); {
	case c.Profiler == session.ProfilerNone:
		return refusePGO("--profiler %s takes no CPU profile", c.Profiler)
	case one && p != runfmt.ProfilerPprof:
		return refusePGO("--profiler %s: its %s; go build -pgo takes the Go runtime's CPU profile, served by the service's net/http/pprof (--profiler %s)",
			p, outsideReason, runfmt.ProfilerPprof)
	}
	if c.PID > 0 {
		// A native process may be a wrapper whose children are the service.
		info, err := service.DetectRuntime(c.PID)
		if err == nil && info.Runtime != runfmt.RuntimeGo && info.Runtime != runfmt.RuntimeNative {
			return notGo(fmt.Sprintf("pid %d (%s)", c.PID, info.Exe), info.Runtime)
		}
	}
	if len(c.Command) > 0 {
		if rt := commandRuntime(c.Command[0], c.Dir); rt != "" && rt != runfmt.RuntimeGo {
			return notGo(c.Command[0], rt)
		}
	}
	return nil
}

// notGo is the refusal of a service that runs rt.
func notGo(what string, rt runfmt.Runtime) error {
	return refusePGO("%s runs %s, not Go: go build -pgo takes CPU profiles of Go programs", what, rt)
}

// CheckOutput tells whether path can take the profile before any run:
// its directory exists and perflab can create a file in it, and path is
// absent or a regular file.
func CheckOutput(path string) error {
	if err := files.CheckOutput(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".perflab-pgo-test-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	probe.Close()
	_ = os.Remove(probe.Name()) // perflab's own probe file
	return nil
}

// commandRuntime is the runtime a command certainly runs, from the name of
// its executable or the interpreter its #! line names; "" when neither
// says (a Go or other native program, a command not found).
func commandRuntime(argv0, dir string) runfmt.Runtime {
	if rt := service.RuntimeOfName(argv0); rt != "" {
		return rt
	}
	path := argv0
	if !strings.Contains(argv0, "/") {
		p, err := exec.LookPath(argv0)
		if err != nil {
			return ""
		}
		path = p
	} else if dir != "" && !filepath.IsAbs(argv0) {
		path = filepath.Join(dir, argv0)
	}
	f, err := files.Open(path, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, maxShebang)).ReadString('\n')
	if interp := shebangInterpreter(line); interp != "" {
		return service.RuntimeOfName(interp)
	}
	return ""
}

// maxShebang bounds the #! line read (the kernel takes 256 bytes).
const maxShebang = 256

// shebangInterpreter is the interpreter a script's first line names:
// "#!/usr/bin/python3 -u" names python3, and "#!/usr/bin/env -S
// PYTHONOPTIMIZE=1 python3" names python3 as well; "" for a line that is
// not a #! line. What follows the first line is not read.
func shebangInterpreter(line string) string {
	line, _, _ = strings.Cut(line, "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0]
	}
	for _, f := range fields[1:] {
		if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
			return f
		}
	}
	return ""
}
