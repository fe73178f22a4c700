package revision

import (
	"context"
	"path/filepath"
	"testing"
)

func TestHead(t *testing.T) {
	dir := testRepo(t)
	want := run(t, dir, "git", "rev-parse", "HEAD")
	if commit, dirty := Head(context.Background(), dir); commit != want || dirty {
		t.Errorf("Head of a clean tree = %q, %v; want %q, false", commit, dirty, want)
	}
	writeFile(t, filepath.Join(dir, "other"), "untracked")
	if _, dirty := Head(context.Background(), dir); dirty {
		t.Error("Head: an untracked file made the tree dirty")
	}
	writeFile(t, filepath.Join(dir, "v"), "3")
	if commit, dirty := Head(context.Background(), dir); commit != want || !dirty {
		t.Errorf("Head of a changed tracked file = %q, %v; want %q, true", commit, dirty, want)
	}
	if commit, dirty := Head(context.Background(), t.TempDir()); commit != "" || dirty {
		t.Errorf("Head outside a repository = %q, %v; want \"\", false", commit, dirty)
	}
}
