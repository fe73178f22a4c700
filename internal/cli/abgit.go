package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/compare"
	"perflab/internal/lab"
	"perflab/internal/units"
)

// gitFlags are ab's flags for revisions of a git repository.
type gitFlags struct {
	rng          gitRange
	build        string
	buildTimeout time.Duration
	uncommitted  bool
	repo         string
}

// gitRange is --git's value, parsed when the flag is.
type gitRange struct {
	r   lab.GitRange
	set bool
}

func (g *gitRange) String() string {
	if !g.set {
		return ""
	}
	return g.r.String()
}
func (g *gitRange) Type() string { return "BASE..NEW" }
func (g *gitRange) Set(s string) error {
	r, err := lab.ParseGitRange(s)
	if err != nil {
		return err
	}
	g.r, g.set = r, true
	return nil
}

func (g *gitFlags) register(fs *pflag.FlagSet) {
	fs.Var(&g.rng, "git", "compare two revisions of the git repository: `BASE..NEW` (BASE...NEW: from their merge base; NEW alone: from its merge base with the default branch); each is checked out into a temporary worktree and built once with --build, then the command after -- runs it ({out} is the built binary)")
	v := flagSet{fs}
	v.checked(&g.build, "build", "", "", "command", nonEmpty, "with --git: shell `command` that builds a side in its worktree and writes the binary to {out}, e.g. \"go build -o {out} ./cmd/server\" (default: none, the command after -- runs inside each worktree)")
	v.duration(&g.buildTimeout, "build-timeout", "", 10*time.Minute, time.Second, 24*time.Hour, "with --git: give up on a build after this long")
	fs.BoolVar(&g.uncommitted, "uncommitted", false, "with --git: NEW is the working tree with its uncommitted changes (tracked files, and untracked files not ignored), instead of HEAD as committed")
	v.checked(&g.repo, "repo", "", ".", "directory", checkDir, "with --git: a `directory` of the git repository")
}

// check refuses --git's companions without it.
func (g *gitFlags) check(fs *pflag.FlagSet) error {
	if g.rng.set {
		if g.buildTimeout <= 0 {
			return usageErr("--build-timeout %s: must be more than 0", g.buildTimeout)
		}
		return nil
	}
	for _, name := range []string{"build", "build-timeout", "uncommitted", "repo"} {
		if fs.Changed(name) {
			return usageErr("--%s goes with --git BASE..NEW", name)
		}
	}
	return nil
}

// runABGit is ab --git: build both revisions, run them interleaved, compare.
// Without a URL the command is a batch program, run once per run.
func runABGit(cmd *cobra.Command, env Env, f *runFlags, cf compareFlags, g *gitFlags, args []string, runs int) error {
	if cmd.Flags().Changed("base") || cmd.Flags().Changed("new") {
		return usageErr("--git builds BASE and NEW itself: give the service's command after -- (with {out} for the built binary), not --base/--new")
	}
	urls, command, err := splitDash(cmd, args)
	if err != nil {
		return err
	}
	if len(command) == 0 {
		return usageErr("--git: give the service's command after --, e.g. -- {out} -addr 127.0.0.1:8080")
	}
	opt, err := cf.options()
	if err != nil {
		return err
	}
	opt.Expected = []string{"command"}
	cf.runsDir = f.dir
	a := abGit{cmd: cmd, env: env, f: f, cf: cf, opt: opt, lab: g.config(env), runs: runs}
	defer context.AfterFunc(cmd.Context(), func() {
		fmt.Fprintln(env.Stderr, "perflab: stopping after the run under way (Ctrl-C again aborts it); the worktrees are removed")
	})()
	if !f.load.given(urls) {
		return a.batch(command)
	}
	return a.service(urls, command)
}

// abGit is one ab --git: its command, flags and comparison options.
type abGit struct {
	cmd  *cobra.Command
	env  Env
	f    *runFlags
	cf   compareFlags
	opt  compare.Options
	lab  lab.GitConfig
	runs int
}

// service runs the A/B of a service loaded at urls, command its launch.
func (a *abGit) service(urls, command []string) error {
	f, env := a.f, a.env
	c, err := f.config(env, urls, command)
	if err != nil {
		return err
	}
	if f.name == "" {
		c.Name = "" // ABGit names the runs after the repository
	}
	if err := f.pgo.check(a.cmd.Flags(), c); err != nil {
		return err
	}
	f.hooks(env, &c)
	c.Force = a.cf.force
	b, n, prep, err := lab.ABGit(a.cmd.Context(), a.lab, c, a.runs, runLine(env, a.runs))
	if err := a.prepared(prep, len(b)+len(n), err); err != nil {
		return err
	}
	return f.pgo.write(env, f.quiet, " of the "+f.pgo.side+" side", pickSide(f.pgo.side, b, n), a.compare(b, n, err))
}

// batch runs the A/B of a batch program: each side's program runs once
// per run, inside its worktree, measured until it exits (as ab
// --base/--new without a URL).
func (a *abGit) batch(command []string) error {
	f, env := a.f, a.env
	if err := checkBatchFailOn(a.opt); err != nil {
		return err
	}
	bc, err := f.batchConfig(env, a.cmd.Flags(), command)
	if err != nil {
		return err
	}
	if f.name == "" {
		bc.Name = "" // ABGitBatch names the runs after the repository
	}
	if !f.quiet {
		bc.Log = func(msg string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", msg) }
	}
	b, n, prep, err := lab.ABGitBatch(a.cmd.Context(), a.lab, bc, a.runs, batchRunLine(env, a.runs))
	if err := a.prepared(prep, len(b)+len(n), err); err != nil {
		return err
	}
	a.cf.notes = append(a.cf.notes, failedRunNotes(err)...)
	return a.compare(b, n, err)
}

// prepared says how long removing the worktrees took and keeps the
// revisions' notes for the comparison; when no run finished (runs == 0)
// it maps the error that ended ab --git.
func (a *abGit) prepared(prep *lab.GitPrep, runs int, err error) error {
	if prep.Cleanup > 0 && !a.f.quiet {
		fmt.Fprintf(a.env.Stderr, "perflab: removed the worktrees and builds in %s\n", units.FormatDuration(prep.Cleanup))
	}
	if runs == 0 {
		return gitErr(a.env, a.cmd.Context(), err)
	}
	a.cf.notes = prep.Notes
	return nil
}

// compare compares the two sides' runs, after err, what ended them.
func (a *abGit) compare(b, n []*lab.Result, err error) error {
	return finishExperiment(a.env, err, func() error {
		if len(b) == 0 || len(n) == 0 {
			return errNothing
		}
		return runCompare(a.env, entries(b), entries(n), a.opt, a.cf)
	})
}

// config is the lab's view of the flags; the branch a PR merges into
// ($GITHUB_BASE_REF) is tried first as the default branch.
func (g *gitFlags) config(env Env) lab.GitConfig {
	return lab.GitConfig{RepoDir: g.repo, Range: g.rng.r, Build: g.build, BuildTimeout: g.buildTimeout,
		Uncommitted: g.uncommitted, DefaultBranch: env.getenv("GITHUB_BASE_REF")}
}

// gitErr maps an error of ab --git before any run finished: bad input
// exits 2, a failed build shows its output and exits 3.
func gitErr(env Env, ctx context.Context, err error) error {
	var be *lab.GitBuildError
	switch {
	case err == nil:
		return failed(errNothing)
	case errors.Is(err, lab.ErrGitInput):
		msg := strings.TrimPrefix(err.Error(), lab.ErrGitInput.Error()+": ")
		return usageErr("--git: %s", msg)
	case errors.As(err, &be):
		if out := strings.TrimRight(be.Output, "\n"); out != "" {
			fmt.Fprintf(env.Stderr, "perflab: output of the build of %s (%s):\n%s\n", be.Rev.Side, be.Rev.Short(), out)
		}
		return failed(err)
	case ctx.Err() != nil:
		return &exitError{code: ExitInterrupted, err: err}
	}
	return failed(err)
}

// getenv reads the environment, empty when the Env has none.
func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}
