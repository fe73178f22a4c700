package revision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"perflab/internal/files"
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

// buildGuard is the shell a build runs under: the kernel sends it SIGTERM
// when perflab dies, whatever killed it (SIGKILL included: Pdeathsig), and
// its trap kills the build's whole process group, so a build never
// outlives perflab. "$1" is the build command; its exit status is the
// guard's.
const buildGuard = `trap 'kill -KILL 0' TERM HUP; /bin/sh -c "$1" & wait $!`

// Build runs the shell command cmd in dir (a side's worktree) with {out}
// replaced by out, quoted for the shell; the environment also has
// PERFLAB_OUT, PERFLAB_SIDE and PERFLAB_COMMIT. The build and every process
// it starts are killed when ctx ends, after timeout, or when perflab dies;
// what a build that left its process group still runs after perflab was
// killed is found by its PERFLAB_OUT and killed by the next workspace.
func (w *Workspace) Build(ctx context.Context, rev Rev, dir, cmd, out string, timeout time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", buildGuard, "perflab-build", strings.ReplaceAll(cmd, OutToken, shellQuote(out)))
	c.Dir = dir
	c.Env = append(os.Environ(), "PERFLAB_OUT="+out, "PERFLAB_SIDE="+rev.Side, "PERFLAB_COMMIT="+rev.Commit)
	buf := files.NewTail(maxBuildOutput)
	c.Stdout, c.Stderr = buf, buf
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// Pdeathsig follows the thread that forked the guard: keep it alive
	// until the build ends.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
