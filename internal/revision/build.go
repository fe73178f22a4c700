package revision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// OutToken is the placeholder for a side's build output in the build
// command and the service's command line.
const OutToken = "{out}"

// BuildError is a build command that failed; Output is the end of what it
// printed.
type BuildError struct {
	Rev    Rev
	Err    error
	Output string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("the build of %s (%s, %s) failed: %v", e.Rev.Side, e.Rev.Ref, e.Rev.Short(), e.Err)
}

func (e *BuildError) Unwrap() error { return e.Err }

// maxBuildOutput is how much of a build's output is kept (its end, where
// compilers put the error).
const maxBuildOutput = 64 << 10

// Build runs the shell command cmd in dir (a side's worktree) with {out}
// replaced by out, quoted for the shell; the environment also has
// PERFLAB_OUT, PERFLAB_SIDE and PERFLAB_COMMIT. The build and every process
// it starts are killed when ctx ends or after timeout.
func (w *Workspace) Build(ctx context.Context, rev Rev, dir, cmd, out string, timeout time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", strings.ReplaceAll(cmd, OutToken, shellQuote(out)))
	c.Dir = dir
	c.Env = append(os.Environ(), "PERFLAB_OUT="+out, "PERFLAB_SIDE="+rev.Side, "PERFLAB_COMMIT="+rev.Commit)
	buf := &tailBuffer{max: maxBuildOutput}
	c.Stdout, c.Stderr = buf, buf
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	err := c.Run()
	if c.Process != nil {
		// Whatever the build left running in its group (a daemon, a
		// compiler server) goes with it.
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s (--build-timeout)", timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &BuildError{Rev: rev, Err: err, Output: buf.String()}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	s := string(t.buf)
	if t.lost {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		return "[...]\n" + s
	}
	return s
}
