package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// checksumRepo makes a git repository holding the checksum test service
// (testdata/services/checksum, with a go.mod of its own) in two commits:
// the service, then the planted regression, Rounds doubled (twice the CPU
// per request, in main.checksum). It returns the repository's directory.
func checksumRepo(t *testing.T) string {
	t.Helper()
	labtest.NeedTool(t, "git", "")
	src, err := os.ReadFile("../../testdata/services/checksum/main.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	svc := filepath.Join(dir, "testdata", "services", "checksum")
	if err := os.MkdirAll(svc, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "go.mod"), []byte("module checksum\n\ngo 1.26\n"))
	write(filepath.Join(svc, "main.go"), src)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "checksum service")
	doubled := strings.Replace(string(src), "const Rounds = 160", "const Rounds = 320", 1)
	if doubled == string(src) {
		t.Fatal("testdata/services/checksum/main.go no longer has const Rounds = 160")
	}
	write(filepath.Join(svc, "main.go"), []byte(doubled))
	gitRun(t, dir, "commit", "-q", "-am", "hash twice as much")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=perflab test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// leftovers lists what an ab --git may leave behind: workspaces in tmp
// (the test's own temporary directory, see privateTemp), the repository's
// extra worktrees, and processes running a binary built in a workspace.
func leftovers(t *testing.T, repo, tmp string) []string {
	t.Helper()
	var out []string
	ws, _ := filepath.Glob(filepath.Join(tmp, "perflab-ab-*"))
	for _, w := range ws {
		out = append(out, "workspace "+w)
	}
	if list := gitRun(t, repo, "worktree", "list"); strings.Count(list, "\n") > 0 {
		out = append(out, "worktrees:\n"+list)
	}
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, e := range exes {
		if target, err := os.Readlink(e); err == nil && strings.HasPrefix(target, tmp+"/") {
			out = append(out, "process "+e+" -> "+target)
		}
	}
	return out
}

// privateTemp points TMPDIR, for this test and the perflab processes it
// starts, at a directory of its own: what this test's ab --git leaves
// behind is then told apart from the workspaces of other perflab runs on a
// shared machine.
func privateTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

// TestABGitBadInput: each mistake is one line and exit 2, or for a build
// that fails, its output and exit 3; nothing is left behind.
func TestABGitBadInput(t *testing.T) {
	repo := checksumRepo(t)
	tmp := privateTemp(t)
	url := "http://127.0.0.1:1/sum"
	build := "go build -o {out} ./testdata/services/checksum"
	for _, tc := range []struct {
		name string
		args []string
		code ExitCode
		want []string
	}{
		{"not a repository", []string{"--repo", t.TempDir(), "--git", "HEAD~1..HEAD", "--build", build}, ExitUsage, []string{"is not in a git repository"}},
		{"missing revision", []string{"--repo", repo, "--git", "v9.9..HEAD", "--build", build}, ExitUsage, []string{`revision "v9.9" (base) does not exist`}},
		{"bad range", []string{"--repo", repo, "--git", "a..b..c", "--build", build}, ExitUsage, []string{`--git`, `give one range`}},
		{"same commit", []string{"--repo", repo, "--git", "HEAD..main", "--build", build}, ExitUsage, []string{"same commit"}},
		{"failing build", []string{"--repo", repo, "--git", "HEAD~1..HEAD", "--build", "echo compiling; echo 'main.go:1: syntax error: planted' >&2; exit 1"}, ExitFailed,
			[]string{"output of the build of base", "syntax error: planted", "the build of base (HEAD~1", "failed: exit status 1"}},
		{"no build writes {out}", []string{"--repo", repo, "--git", "HEAD~1..HEAD", "--build", "true"}, ExitFailed, []string{"it wrote nothing at {out}"}},
		{"{out} without --build", []string{"--repo", repo, "--git", "HEAD~1..HEAD"}, ExitUsage, []string{"no --build writes it"}},
	} {
		args := append(append([]string{"ab", "--quiet", "--dir", t.TempDir()}, tc.args...), url, "--", "{out}", "-addr", "127.0.0.1:1")
		code, _, errb := runMain(t, args...)
		if code != int(tc.code) {
			t.Errorf("%s: exit %d; want %d\n%s", tc.name, code, tc.code, errb)
		}
		for _, w := range tc.want {
			if !strings.Contains(errb, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, errb)
			}
		}
		if tc.code == ExitUsage && strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%s: want one line, got:\n%s", tc.name, errb)
		}
	}
	for _, bad := range [][]string{{"ab", "--build", "make", "--base", "x", "--new", "y", "http://127.0.0.1:1/"}, {"ab", "--git", "HEAD", "--base", "x", "http://127.0.0.1:1/", "--", "y"}} {
		if code, _, errb := runMain(t, bad...); code != int(ExitUsage) {
			t.Errorf("%q: exit %d; want 2\n%s", bad, code, errb)
		}
	}
	// A dirty tree: NEW left to the default is refused, naming the file.
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module checksum\n\ngo 1.26\n// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errb := runMain(t, "ab", "--quiet", "--dir", t.TempDir(), "--repo", repo, "--git", "HEAD~1..", "--build", build, url, "--", "{out}")
	if code != int(ExitUsage) || !strings.Contains(errb, "uncommitted changes (go.mod)") || !strings.Contains(errb, "--uncommitted") {
		t.Errorf("dirty tree: exit %d %q; want 2 naming go.mod and --uncommitted", code, errb)
	}
	if l := leftovers(t, repo, tmp); len(l) > 0 {
		t.Errorf("left behind: %q", l)
	}
}

// cancelOn is a writer that cancels a context once it has seen a text.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.text) {
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestABGitInterrupted: Ctrl-C during a build, and during the first run,
// exits 130 and leaves no worktree, build or process behind.
func TestABGitInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two revisions and runs the service once (~15 s)")
	}
	repo := checksumRepo(t)
	tmp := privateTemp(t)
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	for _, tc := range []struct{ name, build, at string }{
		{"during the build", "echo building; sleep 67.25", "building base"},
		{"during a run", "go build -o {out} ./testdata/services/checksum", "measuring for"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		errw := &cancelOn{text: tc.at, cancel: cancel}
		env := Env{Stdout: &bytes.Buffer{}, Stderr: errw, Getenv: func(string) string { return "" }}
		code := Main(ctx, []string{"ab", "--dir", t.TempDir(), "--repo", repo, "--git", "HEAD~1..HEAD", "--build", tc.build,
			"--runs", "2", "-d", "2s", "--warmup", "0", "-c", "2", "--pprof", "http://" + pp,
			"http://" + api + "/sum", "--", "{out}", "-addr", api, "-pprof-addr", pp}, env)
		cancel()
		if code != int(ExitInterrupted) {
			t.Errorf("%s: exit %d; want 130\n%s", tc.name, code, errw)
		}
		if l := leftovers(t, repo, tmp); len(l) > 0 {
			t.Errorf("%s: left behind: %q\n%s", tc.name, l, errw)
		}
		if exec.Command("pgrep", "-f", "^sleep 67.25$").Run() == nil {
			t.Errorf("%s: the build's sleep is still running", tc.name)
		}
	}
}

// TestABGitQuietKeepsTheUncommittedNote: with NEW given and the working
// tree changed, the comparison says the changes are not measured, --quiet
// or not (--quiet dropped the note, and the result read as the tree's).
func TestABGitQuietKeepsTheUncommittedNote(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two revisions and runs each once")
	}
	repo := checksumRepo(t)
	privateTemp(t)
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module checksum\n\ngo 1.26\n// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := labtest.FreeAddr(t)
	code, out, errb := runMain(t, "ab", "--quiet", "--dir", t.TempDir(), "--repo", repo, "--git", "HEAD~1..HEAD",
		"--build", "go build -o {out} ./testdata/services/checksum", "--runs", "1", "-d", "1s", "--warmup", "0", "-c", "2", "--profiler", "none",
		"http://"+addr+"/sum", "--", "{out}", "-addr", addr, "-pprof-addr", labtest.FreeAddr(t)) // not 6060: another process may hold it
	if code != int(ExitOK) || !strings.Contains(out, "uncommitted changes in the working tree (go.mod) are not included") {
		t.Errorf("ab --quiet --git HEAD~1..HEAD of a changed tree: exit %d\n%s%s\nwant the comparison to say the changes are not included", code, out, errb)
	}
}

// batchRepo makes a git repository holding a batch program in two
// commits: the program, then the planted regression, its work doubled.
func batchRepo(t *testing.T) string {
	t.Helper()
	labtest.NeedTool(t, "git", "")
	dir := t.TempDir()
	write := func(path, data string) {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const program = `package main

import (
	"crypto/sha256"
	"fmt"
)

const Rounds = 20000

func main() {
	b := make([]byte, 4096)
	var s [32]byte
	for i := 0; i < Rounds; i++ {
		s = sha256.Sum256(b)
		b[0] = s[0]
	}
	fmt.Println(s[0])
}
`
	write("go.mod", "module hashes\n\ngo 1.26\n")
	write("main.go", program)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "hash 20000 blocks")
	write("main.go", strings.Replace(program, "Rounds = 20000", "Rounds = 40000", 1))
	gitRun(t, dir, "commit", "-q", "-am", "hash twice as many")
	return dir
}

// TestABGitBatch: ab --git without a URL builds both revisions of a batch
// program, runs each side's program once per run inside its worktree,
// compares the sides as a batch A/B, names each side's revision, and finds
// the commit that doubled the work; nothing is left behind.
func TestABGitBatch(t *testing.T) {
	labtest.RequireRoot(t, "cgroups and perf")
	if testing.Short() {
		t.Skip("builds two revisions and runs each 5 times")
	}
	repo := batchRepo(t)
	tmp := privateTemp(t)
	code, out, errb := runMain(t, "ab", "--quiet", "--json", "--dir", t.TempDir(), "--repo", repo, "--git", "HEAD~1..HEAD",
		"--build", "go build -o {out} .", "--runs", "5", "--fail-on", "cpu_time>+20%", "--", "{out}")
	if code != int(ExitRegression) {
		t.Fatalf("exit %d; want 1 (the doubled work crosses cpu_time>+20%%)\n%s\n%s", code, out, errb)
	}
	var c runfmt.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if !c.Batch || len(c.Base.Runs) != 5 || len(c.New.Runs) != 5 {
		t.Fatalf("batch %v, %d+%d runs; want a batch comparison of 5+5", c.Batch, len(c.Base.Runs), len(c.New.Runs))
	}
	if c.Base.Revision == nil || c.New.Revision == nil || c.Base.Revision.Subject != "hash 20000 blocks" || c.New.Revision.Subject != "hash twice as many" {
		t.Errorf("revisions %+v, %+v; want each side's commit", c.Base.Revision, c.New.Revision)
	}
	for _, m := range c.Metrics {
		if m.Name == runfmt.MetricCPUS && (m.DeltaPct < 50 || m.PValue == nil || *m.PValue >= 0.05) {
			t.Errorf("cpu_time %+.1f%%, p=%v; want about +100%%, p < 0.05", m.DeltaPct, pval(m.PValue))
		}
	}
	if l := leftovers(t, repo, tmp); len(l) > 0 {
		t.Errorf("left behind: %q", l)
	}
}
