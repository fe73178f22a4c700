package gobench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/compare"
	"perflab/internal/revision"
	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/store"
)

// pairRepo makes a git repository of the pair module with two commits:
// the second makes AlgorithmTwo do its work twenty times over.
func pairRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "pair.go", "pair_test.go"} {
		b, err := os.ReadFile(filepath.Join(pairDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "pair: two algorithms")
	src, _ := os.ReadFile(filepath.Join(dir, "pair.go"))
	slow := strings.Replace(string(src), "func AlgorithmTwo(data, find, repl []byte, out *bytes.Buffer) {\n",
		"func AlgorithmTwo(data, find, repl []byte, out *bytes.Buffer) {\n\tfor range 19 {\n\t\tout.Reset()\n\t\talgorithmTwo(data, find, repl, out)\n\t}\n\tout.Reset()\n\talgorithmTwo(data, find, repl, out)\n}\n\nfunc algorithmTwo(data, find, repl []byte, out *bytes.Buffer) {\n", 1)
	if slow == string(src) {
		t.Fatal("pair.go: AlgorithmTwo not found")
	}
	if err := os.WriteFile(filepath.Join(dir, "pair.go"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-q", "-am", "pair: AlgorithmTwo twenty times over")
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=perflab", "-c", "user.email=perflab@localhost"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGitFlagsTheSlowerRevision: bench --git over two commits runs both
// interleaved and flags the benchmark the second commit slowed down.
func TestGitFlagsTheSlowerRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks of two revisions")
	}
	repo := pairRepo(t)
	rng, _ := revision.ParseRange("HEAD~1..HEAD")
	cfg := Config{Dir: repo, Flags: Flags{Pattern: ".", Count: 6, Benchtime: "20000x", Timeout: 5 * time.Minute},
		NoProfiles: true, Store: store.Store{Root: t.TempDir()}}
	res, err := RunGit(context.Background(), cfg, GitConfig{RepoDir: repo, Range: rng})
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Run.Revision.Side != "base" || res.New.Run.Revision.Subject != "pair: AlgorithmTwo twenty times over" {
		t.Errorf("revisions %+v, %+v", res.Base.Run.Revision, res.New.Run.Revision)
	}
	rules, _ := stats.ParseBenchFailOn("ns/op>+50%,allocs/op>0")
	c := compare.Bench(res.Base.Run, res.New.Run, rules)
	slower := false
	for _, ch := range c.Thresholds {
		switch {
		case !ch.Violated:
		case strings.HasPrefix(ch.Benchmark, "AlgorithmTwo") && ch.Unit == runfmt.BenchUnitTime:
			slower = true
		case ch.Unit != runfmt.BenchUnitTime:
			t.Errorf("flagged %s %s, which the second commit did not change", ch.Benchmark, ch.Unit)
		}
	}
	if !slower || c.Verdict.Status != runfmt.VerdictFail {
		t.Errorf("AlgorithmTwo's ns/op not flagged: verdict %+v, rows %+v", c.Verdict, c.Rows)
	}
	if ws, _ := filepath.Glob(filepath.Join(os.TempDir(), "perflab-ab-"+strconv.Itoa(os.Getpid())+"-*")); len(ws) > 0 {
		t.Errorf("worktrees left behind: %v", ws)
	}
}
