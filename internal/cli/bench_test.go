package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestWithGoTestFlags(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"bench", "-bench", ".", "-count=3", "-benchmem", "./x"}, []string{"bench", "--bench", ".", "--count=3", "--benchmem", "./x"}},
		{[]string{"bench", "--bench", "X", "-n", "-q"}, []string{"bench", "--bench", "X", "-n", "-q"}},
		{[]string{"load", "-count", "3"}, []string{"load", "-count", "3"}},
		{[]string{"bench", "--", "-bench"}, []string{"bench", "--", "-bench"}},
	} {
		if got := withGoTestFlags(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("withGoTestFlags(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// benchModule is a module of packages for perflab bench's tests, made the
// current directory.
func benchModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.26\n",
		"ok/a_test.go":      "package ok\nimport \"testing\"\nvar sink []byte\nfunc BenchmarkGrow(b *testing.B) { for b.Loop() { sink = make([]byte, 64) } }\n",
		"nobench/a_test.go": "package nobench\nimport \"testing\"\nfunc TestA(t *testing.T) {}\n",
		"broken/a_test.go":  "package broken\nimport \"testing\"\nfunc BenchmarkA(b *testing.B) { nosuch() }\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

func TestBenchBadInput(t *testing.T) {
	dir := benchModule(t)
	runs := filepath.Join(dir, "runs")
	for _, tc := range []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"./nope"}, ExitUsage, "nope"},
		{[]string{"./nobench"}, ExitUsage, "package example.com/m/nobench has no benchmarks"},
		{[]string{"-bench", "NoSuch", "./ok"}, ExitUsage, `no benchmark matches -bench "NoSuch"`},
		{[]string{"-bench", "(", "./ok"}, ExitUsage, "--bench (: not a regular expression"},
		{[]string{"--fail-on", "ns/op>5%", "./ok"}, ExitUsage, "--fail-on goes with --git"},
		{[]string{"--git", "HEAD~1..HEAD", "--fail-on", "ns/op>fast", "./ok"}, ExitUsage, `--fail-on ns/op>fast`},
		{[]string{"-benchtime", "0s", "./ok"}, ExitUsage, "--benchtime 0s"},
		{[]string{"-benchtime", "10", "./ok"}, ExitUsage, "--benchtime 10"},
		{[]string{"-cpu", "0,2", "./ok"}, ExitUsage, `--cpu 0,2: "0"`},
		{[]string{"-count", "0", "./ok"}, ExitUsage, "--count 0"},
		{[]string{"--git", "HEAD~1..HEAD", "./ok"}, ExitUsage, "--git"},
		{[]string{"./broken"}, ExitFailed, "undefined: nosuch"},
	} {
		args := append([]string{"bench", "--dir", runs, "--count", "1"}, tc.args...)
		code, stdout, stderr := perflab(t, args...)
		if code != int(tc.code) || !strings.Contains(stderr, tc.want) {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit %d with %q", args, code, stderr, stdout, tc.code, tc.want)
		}
		if tc.code == ExitUsage && strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("perflab %q: %q; want one line", args, stderr)
		}
	}
}

// TestBenchStoresARun: go test's spelling works, the run is printed,
// written and listed by perflab runs, and --json prints run.json. Its
// store is a relative --dir, and the test binary runs in the package's
// directory: the profiles are kept all the same.
func TestBenchStoresARun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks")
	}
	benchModule(t)
	runs := "runs"
	code, stdout, stderr := perflab(t, "bench", "-run", "none", "-bench", ".", "-count", "4", "-benchtime", "2000x", "-benchmem", "--dir", runs, "--json", "./ok")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r runfmt.Run
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Bench == nil || len(r.Bench.Benchmarks) != 1 {
		t.Fatalf("--json: %v: %s", err, stdout)
	}
	b := r.Bench.Benchmarks[0]
	if m, _ := b.Metric(runfmt.BenchUnitBytes); m.Summary.Median != 64 || len(m.Values) != 4 {
		t.Errorf("B/op %+v; want 64 over 4 runs", m)
	}
	if b.Allocs == nil || len(b.Allocs.Lines) == 0 || !strings.Contains(b.Allocs.Lines[0].Text, "make([]byte, 64)") {
		t.Errorf("allocation lines %+v; want the make line", b.Allocs)
	}
	code, stdout, _ = perflab(t, "runs", "--dir", runs)
	if code != 0 || !strings.Contains(stdout, r.ID) {
		t.Errorf("perflab runs: exit %d, %q; want %s listed", code, stdout, r.ID)
	}
	code, stdout, _ = perflab(t, "runs", "show", r.ID, "--dir", runs)
	if code != 0 || !strings.Contains(stdout, "Grow") || !strings.Contains(stdout, "B/op") {
		t.Errorf("perflab runs show: exit %d, %q; want the benchmark table", code, stdout)
	}
	code, stdout, stderr = perflab(t, "bench", "--count", "4", "--benchtime", "2000x", "--no-profiles", "--dir", runs, "--quiet", "./ok")
	if code != 0 {
		t.Fatalf("second bench: exit %d: %s", code, stderr)
	}
	id2 := strings.Fields(stdout[strings.LastIndex(stdout, "\nRun ")+5:])[0]
	code, stdout, stderr = perflab(t, "compare", "--dir", runs, r.ID, id2)
	if code != 0 || !strings.Contains(stdout, "B/op") || !strings.Contains(stdout, "64 B") {
		t.Errorf("perflab compare of two bench runs: exit %d, %q, %q; want the benchmark table", code, stdout, stderr)
	}
}

// TestBenchGitFlagsTheSlowerCommit: perflab bench --git over two commits
// exits 1 on the benchmark the second commit slowed down, naming it, and
// writes the markdown and JUnit reports.
func TestBenchGitFlagsTheSlowerCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks of two revisions")
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
	write("sum_test.go", "package sum\nimport \"testing\"\nvar xs = make([]int, 1000)\nvar sink int\nfunc BenchmarkSum(b *testing.B) { for b.Loop() { sink = Sum(xs) } }\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "sum")
	write("sum.go", "package sum\n\n// Sum adds xs, slowly.\nfunc Sum(xs []int) (s int) {\n\tfor range 20 {\n\t\ts = 0\n\t\tfor _, x := range xs {\n\t\t\ts += x\n\t\t}\n\t}\n\treturn s\n}\n")
	git("commit", "-q", "-am", "sum: twenty times over")
	t.Chdir(dir)
	md, junit := filepath.Join(dir, "summary.md"), filepath.Join(dir, "junit.xml")
	code, stdout, stderr := perflab(t, "bench", "--git", "HEAD~1..HEAD", "-count", "6", "-benchtime", "5000x", "--no-profiles",
		"--fail-on", "ns/op>+50%,allocs/op>0", "--dir", filepath.Join(t.TempDir(), "runs"), "--md", md, "--junit", junit)
	if code != int(ExitRegression) || !strings.Contains(stderr, "ns/op>+50% (Sum") {
		t.Fatalf("exit %d, stderr %q, stdout %q; want exit 1 naming Sum's ns/op", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "(worse)") || !strings.Contains(stdout, "sum: twenty times over") {
		t.Errorf("comparison %q; want the slower commit named and its change worse", stdout)
	}
	for _, f := range []string{md, junit} {
		if b, err := os.ReadFile(f); err != nil || !strings.Contains(string(b), "Sum") {
			t.Errorf("%s: %v, %q", f, err, b)
		}
	}
}
