package revision

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// snapshot records the working tree — HEAD plus the changes to tracked
// files and the untracked files that are not ignored — as a commit on top
// of HEAD that no branch holds, without touching the user's index or files
// (a temporary index is used). A tree equal to HEAD's gives HEAD itself.
func (r *Repo) snapshot(ctx context.Context, exclude []string) (Rev, error) {
	head, err := r.rev(ctx, "new", "HEAD")
	if err != nil {
		return Rev{}, err
	}
	tmp, err := os.MkdirTemp("", fmt.Sprintf("perflab-index-%d-", os.Getpid()))
	if err != nil {
		return Rev{}, err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := git(ctx, r.Root, env, "read-tree", "HEAD"); err != nil {
		return Rev{}, fmt.Errorf("snapshotting the working tree: %w", err)
	}
	args := []string{"add", "-A", "--", "."}
	for _, ex := range exclude {
		if rel, ok := r.relative(ex); ok && !r.ignored(ctx, rel) {
			args = append(args, ":(exclude)"+rel)
		}
	}
	if _, err := git(ctx, r.Root, env, args...); err != nil {
		return Rev{}, fmt.Errorf("snapshotting the working tree: %w", err)
	}
	tree, err := git(ctx, r.Root, env, "write-tree")
	if err != nil {
		return Rev{}, fmt.Errorf("snapshotting the working tree: %w", err)
	}
	headTree, err := git(ctx, r.Root, nil, "rev-parse", head.Commit+"^{tree}")
	if err != nil {
		return Rev{}, err
	}
	if tree == headTree {
		return head, nil
	}
	changed, _ := git(ctx, r.Root, env, "diff-index", "--cached", "--name-only", head.Commit)
	ident := []string{"GIT_AUTHOR_NAME=perflab", "GIT_AUTHOR_EMAIL=perflab@localhost",
		"GIT_COMMITTER_NAME=perflab", "GIT_COMMITTER_EMAIL=perflab@localhost"}
	msg := "perflab: the working tree of " + head.Short() + " with its uncommitted changes"
	commit, err := git(ctx, r.Root, ident, "commit-tree", tree, "-p", head.Commit, "-m", msg)
	if err != nil {
		return Rev{}, fmt.Errorf("snapshotting the working tree: %w", err)
	}
	return Rev{Side: "new", Ref: "working tree", Commit: commit, Subject: head.Subject + " (with uncommitted changes)",
		Uncommitted: true, Changed: lines(changed)}, nil
}

// relative returns path relative to the repository's root, if it is inside.
func (r *Repo) relative(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return rel, true
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// ignored says whether git ignores rel, a path under the root. git add
// refuses a pathspec that names an ignored path, an exclude too (exit 1,
// "paths are ignored by one of your .gitignore files": the run directory
// of a repository that ignores it), and adds no ignored file anyway.
func (r *Repo) ignored(ctx context.Context, rel string) bool {
	_, err := git(ctx, r.Root, nil, "check-ignore", "-q", "--", rel)
	return err == nil
}
