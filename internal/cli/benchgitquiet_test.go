package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchGitQuietSaysTheUncommittedChangeIsLeftOut: perflab bench --git
// BASE..NEW --quiet in a working tree with an uncommitted change measures
// the commits as committed, and says so in one line on stderr: --quiet
// hides progress, not what changes what is measured.
func TestBenchGitQuietSaysTheUncommittedChangeIsLeftOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the benchmarks of two revisions")
	}
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=perflab", "-c", "user.email=perflab@localhost"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("go.mod", "module example.com/sum\n\ngo 1.26\n")
	write("sum.go", "package sum\n\n// Sum adds xs.\nfunc Sum(xs []int) (s int) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n")
	write("sum_test.go", "package sum\nimport \"testing\"\nvar xs = make([]int, 100)\nvar sink int\nfunc BenchmarkSum(b *testing.B) { for b.Loop() { sink = Sum(xs) } }\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "sum")
	write("sum.go", "package sum\n\n// Sum adds xs, twice.\nfunc Sum(xs []int) (s int) {\n\tfor range 2 {\n\t\ts = 0\n\t\tfor _, x := range xs {\n\t\t\ts += x\n\t\t}\n\t}\n\treturn s\n}\n")
	git("commit", "-q", "-am", "sum: twice over")
	write("sum.go", "package sum\n\n// Sum adds xs, uncommitted.\nfunc Sum(xs []int) (s int) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n")
	t.Chdir(dir)
	code, stdout, stderr := perflab(t, "bench", "--git", "HEAD~1..HEAD", "--quiet", "-count", "1", "-benchtime", "10x", "--no-profiles",
		"--dir", filepath.Join(t.TempDir(), "runs"))
	if code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "uncommitted changes in the working tree (sum.go) are not included") {
		t.Errorf("stderr %q; want one line saying sum.go's uncommitted change is left out", stderr)
	}
}
