package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// stackTool is a program that prints a process's thread stacks once.
type stackTool struct {
	name    string // the command
	install string // how to install it
	what    string // what it reads, for messages: "Python threads' stacks"
}

var (
	pySpyTool = stackTool{string(runfmt.ProfilerPySpy), "pip install py-spy", "Python threads' stacks"}
	rbSpyTool = stackTool{string(runfmt.ProfilerRbSpy), "cargo install rbspy", "Ruby's stack"}
	jcmdTool  = stackTool{"jcmd", "install a JDK, which has it (apt-get install default-jdk-headless)", "JVM threads' stacks"}
)

// snapshot runs the tool with args on pid and reads what it printed with
// parse.
func (t stackTool) snapshot(ctx context.Context, pid int, parse func(io.Reader) (*Snapshot, error), args ...string) (*Snapshot, error) {
	out, elapsed, err := t.run(ctx, pid, args...)
	if err != nil {
		return nil, err
	}
	s, err := parse(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("%s on process %d: %w", t.name, pid, err)
	}
	s.PID, s.Elapsed = pid, elapsed
	return s, nil
}

// run runs the tool with args until it exits or ctx ends (the caller's
// time limit), and returns what it printed, at most MaxSnapshotBytes+1
// bytes (one more than the bound tells that it was cut).
func (t stackTool) run(ctx context.Context, pid int, args ...string) ([]byte, time.Duration, error) {
	bin, err := exec.LookPath(t.name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s not found: %s to read %s: %w", t.name, t.install, t.what, ErrToolMissing)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	// Stopped, the tool gets SIGTERM to let go of the process it reads
	// (py-spy pauses it), then SIGKILL a second later.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Second
	out := &headBuffer{max: MaxSnapshotBytes + 1}
	stderr := files.NewTail(8 << 10)
	cmd.Stdout, cmd.Stderr = out, stderr
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, elapsed, fmt.Errorf("%s on process %d did not finish within its time limit: %w", t.name, pid, ErrTimeout)
	case ctx.Err() != nil:
		return nil, elapsed, fmt.Errorf("%s on process %d: %w", t.name, pid, ctx.Err())
	case err != nil:
		return nil, elapsed, t.failed(pid, err, stderr.String()+out.String())
	}
	return out.b, elapsed, nil
}

// failed explains why the tool failed from what it printed.
func (t stackTool) failed(pid int, err error, out string) error {
	low := strings.ToLower(out)
	switch {
	case strings.Contains(low, "no such process") || strings.Contains(low, "no such file") ||
		strings.Contains(low, "not found") && strings.Contains(low, strings.ToLower(fmt.Sprint(pid))):
		return fmt.Errorf("%s: process %d not found (did it exit?): %w", t.name, pid, ErrProcessGone)
	case strings.Contains(low, "permission") || strings.Contains(low, "not permitted"):
		return fmt.Errorf("%s: not permitted to read process %d: run as root or with CAP_SYS_PTRACE (%s): %w",
			t.name, pid, lastLines(out, 2), ErrNotPermitted)
	}
	return fmt.Errorf("%s on process %d: %w: %s", t.name, pid, err, lastLines(out, 3))
}

// headBuffer keeps the first max bytes written to it and drops the rest,
// so a tool that prints without end costs a bounded memory.
type headBuffer struct {
	max int
	b   []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return string(h.b[:min(len(h.b), 8<<10)]) }
