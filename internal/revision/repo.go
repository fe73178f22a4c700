package revision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a git repository's work tree.
type Repo struct {
	// Root is the top of the work tree.
	Root string
}

// Open finds the repository dir is in.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, inputErr("%s is not a directory", dir)
	}
	root, err := git(ctx, abs, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, ErrInput) {
			return nil, err
		}
		return nil, inputErr("%s is not in a git repository (or in its .git directory)", abs)
	}
	return &Repo{Root: root}, nil
}

// Rev is one side of the comparison, resolved.
type Rev struct {
	// Side is "base" or "new".
	Side string
	// Ref says how the commit was chosen: the revision as written, or
	// "merge base of HEAD and origin/main".
	Ref string
	// Commit is the full commit hash; Subject its first line.
	Commit, Subject string
	// Uncommitted says the side is the working tree: HEAD plus the
	// uncommitted changes (tracked files, and untracked files that are not
	// ignored), snapshotted into Commit, a commit that no branch holds.
	Uncommitted bool
	// Changed lists the files of the working tree that differ from HEAD
	// (for an Uncommitted side).
	Changed []string
}

// Short is the commit's abbreviated hash.
func (r Rev) Short() string {
	if len(r.Commit) > 12 {
		return r.Commit[:12]
	}
	return r.Commit
}

// ResolveOptions adjust Resolve.
type ResolveOptions struct {
	// Uncommitted makes NEW the working tree with its uncommitted changes;
	// the range's NEW must then be empty or HEAD.
	Uncommitted bool
	// DefaultBranch, when set, is tried first as the default branch (CI
	// passes the pull request's base branch, e.g. GITHUB_BASE_REF).
	DefaultBranch string
	// Exclude are paths (relative to the current directory or absolute)
	// kept out of a working-tree snapshot: perflab's own run directory.
	Exclude []string
}

// Resolution is a resolved range: both sides and what the user should be
// told about them (uncommitted changes left out, a shallow clone...).
type Resolution struct {
	Base, New Rev
	Notes     []string
}

// Resolve resolves rg in the repository. A revision that does not exist, a
// working tree with uncommitted changes when NEW was left to the default,
// and two sides that are one commit are bad input (ErrInput).
func (r *Repo) Resolve(ctx context.Context, rg Range, opt ResolveOptions) (*Resolution, error) {
	res := &Resolution{}
	newRef := rg.New
	if newRef == "" {
		newRef = "HEAD"
	}
	if opt.Uncommitted && newRef != "HEAD" {
		return nil, inputErr("--uncommitted measures the working tree as NEW: leave NEW out of --git (%s.. or %s..HEAD), not %q", rg.Base, rg.Base, rg.New)
	}
	changed, err := r.changedFiles(ctx)
	if err != nil {
		return nil, err
	}
	var nw Rev
	switch {
	case opt.Uncommitted:
		if nw, err = r.snapshot(ctx, opt.Exclude); err != nil {
			return nil, err
		}
		if !nw.Uncommitted {
			res.Notes = append(res.Notes, fmt.Sprintf("--uncommitted: the working tree has no changes, NEW is HEAD (%s)", nw.Short()))
		}
	case len(changed) > 0 && rg.New == "":
		return nil, inputErr("the working tree has uncommitted changes (%s): give --uncommitted to measure them as NEW, or --git %s to measure the last commit without them",
			listFiles(changed, 3), Range{Base: rg.Base, New: "HEAD", MergeBase: rg.MergeBase}.withDefaultBase())
	default:
		if nw, err = r.rev(ctx, "new", newRef); err != nil {
			return nil, err
		}
		if len(changed) > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("NEW is %s (%s) as committed: the uncommitted changes in the working tree (%s) are not included (--uncommitted includes them)", newRef, nw.Short(), listFiles(changed, 3)))
		}
	}
	res.New = nw
	if res.Base, err = r.resolveBase(ctx, rg, nw, opt); err != nil {
		return nil, err
	}
	if res.Base.Commit == res.New.Commit {
		return nil, inputErr("BASE (%s) and NEW (%s) are the same commit %s: nothing to compare (on the default branch itself, give BASE: --git HEAD~1..HEAD)", res.Base.Ref, res.New.Ref, res.New.Short())
	}
	return res, nil
}

// withDefaultBase spells a range whose Base may be empty.
func (rg Range) withDefaultBase() string {
	if rg.Base == "" {
		return rg.New
	}
	return rg.String()
}

func (r *Repo) resolveBase(ctx context.Context, rg Range, nw Rev, opt ResolveOptions) (Rev, error) {
	switch {
	case rg.Base != "" && !rg.MergeBase:
		return r.rev(ctx, "base", rg.Base)
	case rg.Base != "":
		other, err := r.rev(ctx, "base", rg.Base)
		if err != nil {
			return Rev{}, err
		}
		return r.mergeBase(ctx, other.Commit, nw.Commit, fmt.Sprintf("merge base of %s and %s", rg.Base, nw.refName()))
	}
	branch, err := r.defaultBranch(ctx, opt.DefaultBranch)
	if err != nil {
		return Rev{}, err
	}
	return r.mergeBase(ctx, branch, nw.Commit, fmt.Sprintf("merge base of %s and %s", nw.refName(), branch))
}

func (r Rev) refName() string {
	if r.Uncommitted {
		return "HEAD"
	}
	return r.Ref
}

func (r *Repo) mergeBase(ctx context.Context, a, b, ref string) (Rev, error) {
	mb, err := git(ctx, r.Root, nil, "merge-base", a, b)
	if err != nil {
		return Rev{}, inputErr("%s: none found (%v)%s", ref, err, r.shallowHint(ctx))
	}
	rev, err := r.rev(ctx, "base", mb)
	rev.Ref = ref
	return rev, err
}

// rev resolves one revision to its commit.
func (r *Repo) rev(ctx context.Context, side, ref string) (Rev, error) {
	out, err := git(ctx, r.Root, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || out == "" {
		if errors.Is(err, ErrInput) {
			return Rev{}, err
		}
		return Rev{}, inputErr("revision %q (%s) does not exist in %s%s", ref, side, r.Root, r.shallowHint(ctx))
	}
	subject, _ := git(ctx, r.Root, nil, "log", "-1", "--format=%s", out)
	return Rev{Side: side, Ref: ref, Commit: out, Subject: subject}, nil
}

// shallowHint says how to fetch more history when the clone is shallow.
func (r *Repo) shallowHint(ctx context.Context) string {
	if out, _ := git(ctx, r.Root, nil, "rev-parse", "--is-shallow-repository"); out == "true" {
		return " (the clone is shallow: fetch more history, e.g. actions/checkout with fetch-depth: 0, or git fetch --unshallow)"
	}
	return ""
}

// defaultBranch finds the branch BASE defaults to: the hint (and
// origin/hint), origin/HEAD's target, main, master, origin/main,
// origin/master, then init.defaultBranch.
func (r *Repo) defaultBranch(ctx context.Context, hint string) (string, error) {
	var cands []string
	if hint != "" {
		cands = append(cands, "origin/"+hint, hint)
	}
	if head, err := git(ctx, r.Root, nil, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil && head != "" {
		cands = append(cands, head)
	}
	cands = append(cands, "main", "master", "origin/main", "origin/master")
	if def, err := git(ctx, r.Root, nil, "config", "--get", "init.defaultBranch"); err == nil && def != "" {
		cands = append(cands, def)
	}
	for _, c := range cands {
		if checkRev(c) != nil {
			continue
		}
		if out, err := git(ctx, r.Root, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}"); err == nil && out != "" {
			return c, nil
		}
	}
	return "", inputErr("no default branch to take BASE from (tried %s): give BASE, e.g. --git main..HEAD", strings.Join(cands, ", "))
}

// changedFiles lists the tracked files that differ from HEAD, staged or
// not (untracked files do not make a tree dirty: a build of HEAD ignores
// them as a checkout of HEAD would not have them).
func (r *Repo) changedFiles(ctx context.Context) ([]string, error) {
	out, err := git(ctx, r.Root, nil, "diff", "--name-only", "HEAD", "--")
	if err != nil {
		if errors.Is(err, ErrInput) {
			return nil, err
		}
		return nil, fmt.Errorf("reading the working tree's state: %w", err)
	}
	return lines(out), nil
}

func listFiles(files []string, n int) string {
	if len(files) <= n {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:n], ", "), len(files)-n)
}
