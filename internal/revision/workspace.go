package revision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// checkoutTimeout bounds one worktree checkout (a large repository's files
// are written to disk).
const checkoutTimeout = 5 * time.Minute

// tempPrefix names every temporary directory of a workspace, with the
// owning process's PID after it.
const tempPrefix = "perflab-ab-"

// Workspace holds the temporary worktrees and builds of one experiment.
type Workspace struct {
	repo  *Repo
	dir   string
	trees []string
}

// NewWorkspace makes a temporary directory for worktrees and builds, after
// removing those that perflab processes which no longer run left behind.
func (r *Repo) NewWorkspace(ctx context.Context) (*Workspace, error) {
	r.cleanupStale(ctx)
	dir, err := os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("making a directory for the worktrees: %w", err)
	}
	return &Workspace{repo: r, dir: dir}, nil
}

// Dir is the workspace's temporary directory.
func (w *Workspace) Dir() string { return w.dir }

// Checkout checks rev out into a new detached worktree and returns its path.
func (w *Workspace) Checkout(ctx context.Context, rev Rev) (string, error) {
	path := filepath.Join(w.dir, rev.Side)
	ctx, cancel := context.WithTimeout(ctx, checkoutTimeout)
	defer cancel()
	w.trees = append(w.trees, path)
	if _, err := gitCtx(ctx, w.repo.Root, nil, "worktree", "add", "--detach", "--quiet", path, rev.Commit); err != nil {
		return "", fmt.Errorf("checking out %s (%s): %w", rev.Side, rev.Short(), err)
	}
	return path, nil
}

// Output is the path a side's build writes its binary to ({out}): named
// after the repository, in a directory of its own outside the worktree.
func (w *Workspace) Output(rev Rev) string {
	return filepath.Join(w.dir, "bin", rev.Side, filepath.Base(w.repo.Root))
}

// Close removes the worktrees (from the repository's list too) and the
// builds. It is safe to call more than once, and works after ctx ended.
func (w *Workspace) Close() error {
	if w == nil || w.dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	var errs []error
	for _, t := range w.trees {
		if _, err := os.Stat(t); err != nil {
			continue
		}
		if _, err := gitCtx(ctx, w.repo.Root, nil, "worktree", "remove", "--force", "--force", t); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(w.dir); err != nil {
		errs = append(errs, err)
	}
	if _, err := gitCtx(ctx, w.repo.Root, nil, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	w.trees, w.dir = nil, ""
	return errors.Join(errs...)
}

// cleanupStale removes the workspaces of perflab processes that no longer
// run, after killing what their builds left running, and prunes their
// worktrees from the repository.
func (r *Repo) cleanupStale(ctx context.Context) {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	removed := false
	for _, m := range matches {
		pidStr, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(m), tempPrefix), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || alive(pid) {
			continue
		}
		killLeftovers(m)
		if os.RemoveAll(m) == nil {
			removed = true
		}
	}
	if removed {
		_, _ = git(ctx, r.Root, nil, "worktree", "prune")
	}
}

// alive says whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
