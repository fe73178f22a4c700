package revision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// gitTimeout bounds each git command but worktree checkouts (see
// checkoutTimeout): they read the local repository only.
const gitTimeout = 30 * time.Second

// ErrInput is wrapped by the errors that come from what the user gave (a
// revision that does not exist, a directory that is not a repository, a
// dirty tree): they are bad input, not failures of the experiment.
var ErrInput = errors.New("bad --git input")

// inputErr is an error in what the user gave.
func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// git runs git with args in dir and returns its trimmed standard output;
// the error carries git's own first line of standard error.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	return gitCtx(ctx, dir, env, args...)
}

func gitCtx(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errb
	if len(env) > 0 {
		cmd.Env = append(cmd.Environ(), env...)
	}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", inputErr("git is not installed (not found on PATH)")
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(errb.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", &gitError{args: args, msg: msg}
	}
	return strings.TrimSpace(out.String()), nil
}

// gitError is a git command that failed, with its message.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string { return "git " + strings.Join(e.args, " ") + ": " + e.msg }
