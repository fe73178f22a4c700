package revision

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// testRepo makes a git repository with a main branch of two commits, each
// writing file "v" (1, then 2), and returns its directory.
func testRepo(t *testing.T) string {
	t.Helper()
	labtest.NeedTool(t, "git", "")
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main")
	for _, v := range []string{"1", "2"} {
		writeFile(t, filepath.Join(dir, "v"), v)
		run(t, dir, "git", "add", "-A")
		run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "v"+v)
	}
	return dir
}

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func resolve(t *testing.T, dir, rng string, opt ResolveOptions) (*Resolution, error) {
	t.Helper()
	r, err := ParseRange(rng)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo.Resolve(context.Background(), r, opt)
}

func TestResolve(t *testing.T) {
	dir := testRepo(t)
	head, prev := run(t, dir, "git", "rev-parse", "HEAD"), run(t, dir, "git", "rev-parse", "HEAD~1")
	run(t, dir, "git", "checkout", "-q", "-b", "feature")
	writeFile(t, filepath.Join(dir, "v"), "3")
	run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "v3")
	feature := run(t, dir, "git", "rev-parse", "HEAD")
	for _, tc := range []struct {
		rng           string
		base, new     string
		baseRefSuffix string
	}{
		{"HEAD~2..HEAD~1", prev, head, "HEAD~2"},
		{"main..", head, feature, "main"},
		{"HEAD", head, feature, "merge base of HEAD and main"},
		{"main~1...feature", prev, feature, "merge base of main~1 and feature"},
	} {
		res, err := resolve(t, dir, tc.rng, ResolveOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.rng, err)
			continue
		}
		if res.Base.Commit != tc.base || res.New.Commit != tc.new || res.Base.Ref != tc.baseRefSuffix {
			t.Errorf("%s: base %s (%q), new %s; want %s (%q), %s", tc.rng, res.Base.Short(), res.Base.Ref, res.New.Short(), tc.base[:12], tc.baseRefSuffix, tc.new[:12])
		}
		if res.New.Subject == "" || res.Base.Side != "base" || res.New.Side != "new" {
			t.Errorf("%s: %+v", tc.rng, res)
		}
	}
}

// TestResolveBadInput: each mistake is bad input (ErrInput) with one line
// that says what is wrong.
func TestResolveBadInput(t *testing.T) {
	dir := testRepo(t)
	for _, tc := range []struct{ rng, want string }{
		{"nope..HEAD", `revision "nope" (base) does not exist`},
		{"HEAD~1..nope", `revision "nope" (new) does not exist`},
		{"HEAD..HEAD", "are the same commit"},
		{"main", "are the same commit"},
	} {
		_, err := resolve(t, dir, tc.rng, ResolveOptions{})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", tc.rng, err, tc.want)
		}
	}
	if _, err := Open(context.Background(), t.TempDir()); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("Open(empty dir) = %v; want not in a git repository", err)
	}
	// A dirty tree: NEW left to the default is refused, an explicit HEAD is
	// measured as committed with a note, --uncommitted snapshots it.
	writeFile(t, filepath.Join(dir, "v"), "dirty")
	if _, err := resolve(t, dir, "HEAD~1..", ResolveOptions{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "uncommitted changes (v)") || !strings.Contains(err.Error(), "--uncommitted") {
		t.Errorf("dirty tree, NEW by default: %v; want a refusal naming v and --uncommitted", err)
	}
	res, err := resolve(t, dir, "HEAD~1..HEAD", ResolveOptions{})
	if err != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not included") {
		t.Errorf("dirty tree, NEW=HEAD: %+v, %v; want a note that the changes are not included", res, err)
	}
	if _, err := resolve(t, dir, "HEAD~1..main", ResolveOptions{Uncommitted: true}); !errors.Is(err, ErrInput) {
		t.Errorf("--uncommitted with NEW=main: %v; want bad input", err)
	}
}

// TestUncommittedSnapshot: the working tree becomes a commit holding the
// changes and untracked files, but not the excluded run directory, whether
// or not the repository ignores it; the user's index and files are
// untouched.
func TestUncommittedSnapshot(t *testing.T) {
	t.Run("run directory not ignored", func(t *testing.T) { checkSnapshot(t, false) })
	t.Run("run directory ignored", func(t *testing.T) { checkSnapshot(t, true) })
}

func checkSnapshot(t *testing.T, ignored bool) {
	dir := testRepo(t)
	if ignored {
		writeFile(t, filepath.Join(dir, ".gitignore"), "/perflab-runs/\n")
		run(t, dir, "git", "add", ".gitignore")
		run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "ignore the runs")
	}
	writeFile(t, filepath.Join(dir, "v"), "dirty")
	writeFile(t, filepath.Join(dir, "new.txt"), "untracked")
	if err := os.MkdirAll(filepath.Join(dir, "perflab-runs", "r1"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "perflab-runs", "r1", "run.json"), "{}")
	statusBefore := run(t, dir, "git", "status", "--porcelain")
	res, err := resolve(t, dir, "HEAD~1..", ResolveOptions{Uncommitted: true, Exclude: []string{filepath.Join(dir, "perflab-runs")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.New.Uncommitted || res.New.Ref != "working tree" {
		t.Fatalf("new = %+v; want the working tree", res.New)
	}
	if got := run(t, dir, "git", "show", res.New.Commit+":v"); got != "dirty" {
		t.Errorf("snapshot's v = %q; want dirty", got)
	}
	files := run(t, dir, "git", "ls-tree", "-r", "--name-only", res.New.Commit)
	if !strings.Contains(files, "new.txt") || strings.Contains(files, "perflab-runs") {
		t.Errorf("snapshot holds %q; want new.txt and no perflab-runs", files)
	}
	if after := run(t, dir, "git", "status", "--porcelain"); after != statusBefore {
		t.Errorf("git status changed: %q -> %q", statusBefore, after)
	}
}

// TestWorkspace: checkouts and a build land in the workspace, a failing
// build returns its output, and Close leaves no worktree or directory.
func TestWorkspace(t *testing.T) {
	dir := testRepo(t)
	res, err := resolve(t, dir, "HEAD~1..HEAD", ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := Open(context.Background(), dir)
	ws, err := repo.NewWorkspace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tree, err := ws.Checkout(context.Background(), res.Base)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(tree, "v")); string(b) != "1" {
		t.Errorf("base worktree's v = %q; want 1", b)
	}
	out := ws.Output(res.Base)
	if err := ws.Build(context.Background(), res.Base, tree, "cp v {out} && echo built $PERFLAB_SIDE", out, time.Minute); err != nil {
		t.Fatalf("build: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "1" {
		t.Errorf("{out} = %q; want the base's v", b)
	}
	err = ws.Build(context.Background(), res.Base, tree, "echo compiling; echo 'main.go:3: undefined: x' >&2; exit 2", out, time.Minute)
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "undefined: x") || !strings.Contains(be.Error(), "exit status 2") {
		t.Errorf("failing build: %v (output %q); want a BuildError with its output", err, be)
	}
	if err := ws.Build(context.Background(), res.Base, tree, "sleep 30", out, 200*time.Millisecond); !errors.As(err, &be) || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("slow build: %v; want timed out", err)
	}
	wsDir := ws.Dir()
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wsDir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close", wsDir)
	}
	if list := run(t, dir, "git", "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktrees after Close:\n%s", list)
	}
}

// TestStaleWorkspaces: a workspace of a process that no longer runs is
// removed, with its worktree, by the next workspace.
func TestStaleWorkspaces(t *testing.T) {
	dir := testRepo(t)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	stale, err := os.MkdirTemp("", tempPrefix+strconv.Itoa(dead)+"-")
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "git", "worktree", "add", "--detach", "-q", filepath.Join(stale, "base"), "HEAD~1")
	repo, _ := Open(context.Background(), dir)
	ws, err := repo.NewWorkspace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale workspace %s of dead pid %d still exists", stale, dead)
	}
	if list := run(t, dir, "git", "worktree", "list"); strings.Contains(list, stale) {
		t.Errorf("stale worktree still listed:\n%s", list)
	}
}
