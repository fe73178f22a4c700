package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"perflab/internal/revision"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// GitConfig says which revisions of a git repository an A/B compares and
// how each is built.
type GitConfig struct {
	// RepoDir is a directory inside the repository.
	RepoDir string
	Range   revision.Range
	// Build is a shell command run once in each side's worktree, with
	// {out} replaced by the path the binary must be written to; "" runs the
	// service's command inside each worktree without a build.
	Build        string
	BuildTimeout time.Duration
	// Uncommitted makes NEW the working tree with its uncommitted changes.
	Uncommitted bool
	// DefaultBranch is tried first as the branch BASE defaults to.
	DefaultBranch string
}

// GitPrep is what ABGit did before the runs: the revisions and the time
// spent on them.
type GitPrep struct {
	Base, New *runfmt.Revision
	// Notes are what the user should know about the revisions (uncommitted
	// changes left out...).
	Notes []string
	// Checkout is the time spent resolving and checking out both sides,
	// Build the time of each side's build, Cleanup the time to remove the
	// worktrees and builds.
	Checkout, Cleanup time.Duration
	Build             [2]time.Duration
}

// ABGit checks BASE and NEW out into temporary worktrees, builds each once
// with g.Build, and runs the interleaved A/B (see AB) of the two with
// tmpl's load and budget; tmpl.Command's {out} is each side's binary, and
// each side's service runs inside its worktree. The worktrees and builds
// are removed before ABGit returns, whatever happened (ctx cancelled
// included). Errors in what the user gave wrap revision.ErrInput; a build
// that fails is a *revision.BuildError.
func ABGit(ctx context.Context, g GitConfig, tmpl Config, runs int, done RunDone) (base, new []*Result, prep *GitPrep, err error) {
	sides, prep, closeSides, err := gitSides(ctx, g, tmpl)
	defer func() { err = errors.Join(err, closeSides()) }()
	if err != nil {
		return nil, nil, prep, err
	}
	base, new, err = AB(ctx, sides[0], sides[1], runs, done)
	return base, new, prep, err
}

// ABGitBatch is ABGit for a batch program (see ABBatch): each side's
// program runs once per run, inside its worktree, measured until it exits.
func ABGitBatch(ctx context.Context, g GitConfig, tmpl BatchConfig, runs int, done RunDone) (base, new []*Result, prep *GitPrep, err error) {
	sides, prep, closeSides, err := gitSides(ctx, g, tmpl.Config)
	defer func() { err = errors.Join(err, closeSides()) }()
	if err != nil {
		return nil, nil, prep, err
	}
	b, n := tmpl, tmpl
	b.Config, n.Config = sides[0], sides[1]
	base, new, err = ABBatch(ctx, b, n, runs, done)
	return base, new, prep, err
}

// gitSides resolves BASE and NEW, checks each out into a worktree and
// builds it, and returns tmpl made into each side's config, and what
// removes the worktrees and builds (always to be called; it times the
// removal into prep.Cleanup).
func gitSides(ctx context.Context, g GitConfig, tmpl Config) (sides [2]Config, prep *GitPrep, closeSides func() error, err error) {
	prep = &GitPrep{}
	closeSides = func() error { return nil }
	if err := checkOutToken(g.Build, tmpl.Command); err != nil {
		return sides, prep, closeSides, err
	}
	start := time.Now()
	repo, err := revision.Open(ctx, g.RepoDir)
	if err != nil {
		return sides, prep, closeSides, err
	}
	if tmpl.Name == "" {
		tmpl.Name = filepath.Base(repo.Root)
	}
	tmpl.Defaults()
	res, err := repo.Resolve(ctx, g.Range, revision.ResolveOptions{Uncommitted: g.Uncommitted, DefaultBranch: g.DefaultBranch, Exclude: []string{tmpl.Store.Root}})
	if err != nil {
		return sides, prep, closeSides, err
	}
	prep.Notes = res.Notes
	for _, n := range res.Notes {
		tmpl.Log(n)
	}
	ws, err := repo.NewWorkspace(ctx)
	if err != nil {
		return sides, prep, closeSides, err
	}
	closeSides = func() error {
		t := time.Now()
		defer func() { prep.Cleanup = time.Since(t) }()
		if err := ws.Close(); err != nil {
			return fmt.Errorf("removing the worktrees in %s: %w", ws.Dir(), err)
		}
		return nil
	}
	for i, rev := range [2]revision.Rev{res.Base, res.New} {
		rec := &runfmt.Revision{Side: rev.Side, Ref: rev.Ref, Commit: rev.Commit, Subject: rev.Subject, Uncommitted: rev.Uncommitted, Build: g.Build}
		if i == 0 {
			prep.Base = rec
		} else {
			prep.New = rec
		}
		dir, err := ws.Checkout(ctx, rev)
		if err != nil {
			return sides, prep, closeSides, err
		}
		out := ws.Output(rev)
		if g.Build != "" {
			tmpl.Log(fmt.Sprintf("building %s %s (%s): %s", rev.Side, rev.Short(), rev.Ref, g.Build))
			t := time.Now()
			if err := ws.Build(ctx, rev, dir, g.Build, out, g.BuildTimeout); err != nil {
				return sides, prep, closeSides, err
			}
			prep.Build[i] = time.Since(t)
			if err := checkBuilt(rev, out, tmpl.Command); err != nil {
				return sides, prep, closeSides, err
			}
		}
		c := tmpl
		c.Command = withOut(tmpl.Command, out)
		c.Dir = dir
		c.Revision = rec
		sides[i] = c
	}
	prep.Checkout = time.Since(start) - prep.Build[0] - prep.Build[1]
	tmpl.Log(fmt.Sprintf("base %s (%s), new %s (%s): ready in %s (builds %s + %s)", prep.Base.Short(), prep.Base.Ref,
		prep.New.Short(), prep.New.Ref, units.FormatDuration(time.Since(start)), units.FormatDuration(prep.Build[0]), units.FormatDuration(prep.Build[1])))
	return sides, prep, closeSides, nil
}

// checkOutToken refuses {out} in the service's command when nothing builds it.
func checkOutToken(build string, command []string) error {
	if len(command) == 0 {
		return fmt.Errorf("%w: give the service's command after --, e.g. -- %s -addr 127.0.0.1:8080", revision.ErrInput, revision.OutToken)
	}
	if build == "" && strings.Contains(strings.Join(command, " "), revision.OutToken) {
		return fmt.Errorf("%w: the command uses %s, but no --build writes it (e.g. --build \"go build -o %s ./cmd/server\")", revision.ErrInput, revision.OutToken, revision.OutToken)
	}
	return nil
}

// checkBuilt makes sure a build wrote {out} when the command runs it.
func checkBuilt(rev revision.Rev, out string, command []string) error {
	if !strings.Contains(strings.Join(command, " "), revision.OutToken) {
		return nil
	}
	if st, err := os.Stat(out); err != nil || st.IsDir() {
		return &revision.BuildError{Rev: rev, Err: fmt.Errorf("it wrote nothing at %s (%s): the build command must write the binary there, e.g. go build -o %s ./cmd/server", revision.OutToken, out, revision.OutToken)}
	}
	return nil
}

// withOut replaces {out} in each argument.
func withOut(argv []string, out string) []string {
	res := make([]string, len(argv))
	for i, a := range argv {
		res[i] = strings.ReplaceAll(a, revision.OutToken, out)
	}
	return res
}
