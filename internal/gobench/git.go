package gobench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"perflab/internal/revision"
	"perflab/internal/runfmt"
)

// GitConfig selects the two revisions of perflab bench --git.
type GitConfig struct {
	// RepoDir is a directory of the repository.
	RepoDir string
	Range   revision.Range
	// Uncommitted makes NEW the working tree with its changes.
	Uncommitted bool
	// DefaultBranch is tried first as the branch BASE defaults to.
	DefaultBranch string
}

// GitStored is the two runs of perflab bench --git, and what the user
// should be told about the revisions.
type GitStored struct {
	Base, New *Stored
	Notes     []string
}

// RunGit benchmarks the packages of two revisions: each is checked out
// into a temporary worktree and built once, then the timed runs alternate
// base, new, base, new (one -count at a time, so the machine's drift
// spreads over both), then each side's profiles are taken. Both runs are
// written, with what completed when an error (Ctrl-C) stops the timed
// runs. The worktrees and binaries are removed however it ends.
func RunGit(ctx context.Context, cfg Config, g GitConfig) (out *GitStored, err error) {
	cfg.defaults()
	repo, err := revision.Open(ctx, g.RepoDir)
	if err != nil {
		return nil, err
	}
	res, err := repo.Resolve(ctx, g.Range, revision.ResolveOptions{Uncommitted: g.Uncommitted, DefaultBranch: g.DefaultBranch, Exclude: []string{cfg.Store.Root}})
	if err != nil {
		return nil, err
	}
	for _, n := range res.Notes {
		cfg.note(n)
	}
	ws, err := repo.NewWorkspace(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := ws.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("removing the worktrees in %s: %w", ws.Dir(), cerr))
		}
	}()
	sides, err := prepareSides(ctx, &cfg, repo, ws, [2]revision.Rev{res.Base, res.New})
	if err != nil {
		return nil, err
	}
	return runSides(ctx, &cfg, sides, res.Notes)
}

// prepareSides checks both revisions out and builds their test binaries.
func prepareSides(ctx context.Context, cfg *Config, repo *revision.Repo, ws *revision.Workspace, revs [2]revision.Rev) ([2]*side, error) {
	var sides [2]*side
	rel := relativeDir(repo.Root, cfg.Dir)
	for i, rev := range revs {
		tree, err := ws.Checkout(ctx, rev)
		if err != nil {
			return sides, err
		}
		cfg.log(fmt.Sprintf("%s: %s (%s)", rev.Side, rev.Short(), rev.Ref))
		s, err := prepare(ctx, cfg, filepath.Join(tree, rel), filepath.Join(ws.Dir(), "bench", rev.Side), rev.Side)
		if err != nil {
			return sides, err
		}
		s.rev = &runfmt.Revision{Side: rev.Side, Ref: rev.Ref, Commit: rev.Commit, Subject: rev.Subject, Uncommitted: rev.Uncommitted, Build: "go test -c"}
		sides[i] = s
	}
	return sides, nil
}

// relativeDir is where the packages are resolved inside a worktree: the
// user's directory relative to the repository's top, or the top when the
// directory lies outside it.
func relativeDir(root, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "."
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "."
	}
	return rel
}

// runSides runs the timed runs interleaved, then the profiles, and writes
// both runs.
func runSides(ctx context.Context, cfg *Config, sides [2]*side, notes []string) (*GitStored, error) {
	var recs [2]*record
	for i, s := range sides {
		rec, err := newRecord(ctx, cfg, s, s.name())
		if err != nil {
			return nil, err
		}
		rec.run.Warnings = notes
		recs[i] = rec
	}
	once := cfg.Flags
	once.Count = 1
	var runErr error
	for rep := 0; rep < cfg.Flags.Count && runErr == nil; rep++ {
		cfg.log(fmt.Sprintf("timed run %d of %d: base, then new", rep+1, cfg.Flags.Count))
		for _, s := range sides {
			if runErr = s.timedRun(ctx, once); runErr != nil {
				break
			}
		}
		if rep == 0 && runErr == nil {
			runErr = errors.Join(sides[0].checkResults(cfg), sides[1].checkResults(cfg))
		}
	}
	out := &GitStored{Notes: notes}
	var errs []error
	for i, s := range sides {
		st, err := recs[i].finish(ctx, cfg, s, runErr)
		if i == 0 {
			out.Base = st
		} else {
			out.New = st
		}
		if err != nil && !errors.Is(err, runErr) {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(append([]error{runErr}, errs...)...)
}
