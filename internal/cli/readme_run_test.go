package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// The README test runs the README's commands as a reader would: each
// top-level sh block in a bash of its own, its commands in order, from
// the root of a clone of the repository with perflab on PATH (what the
// README's Install block does). Two comments of the README steer it:
//
//   - a command whose comment holds "(slow" takes longer than a minute
//     (the test suite, a build with -pgo, ab --git): it is left out, and
//     its own tests cover it;
//   - a block whose first line is "# needs: TOOL, TOOL" needs tools
//     .ci/setup installs: it skips through labtest when one is missing.
//
// Every perflab and go command is bounded by readmeCommandLimit; perflab
// ui, which serves until interrupted, is interrupted after readmeUILimit
// and passes if it was still serving.
const (
	readmeCommandLimit = 150 * time.Second
	readmeUILimit      = 3 * time.Second
	readmeTestLimit    = 15 * time.Minute
	readmeSlow         = "(slow"
)

// readmeBlock is one top-level sh block of the README.
type readmeBlock struct {
	line  int      // the README line of its first command
	needs []string // the tools of its "# needs:" line
	cmds  []readmeLine
}

// readmeLine is one command of a block: its first README line and its
// text, a line continued by a backslash joined with the next.
type readmeLine struct {
	line int
	text string
}

// topFenceRE is an sh block at the start of a line: a block indented in a
// list item is a recipe for elsewhere, not a command for this machine.
var topFenceRE = regexp.MustCompile("(?ms)^```sh\n(.*?)^```$")

var needsRE = regexp.MustCompile(`^#\s*needs:\s*([^(]*)`)

// readmeBlocks are the README's top-level sh blocks, their slow commands
// left out, and the blocks left with no command dropped.
func readmeBlocks(readme string) []readmeBlock {
	var out []readmeBlock
	for _, m := range topFenceRE.FindAllStringSubmatchIndex(readme, -1) {
		first := strings.Count(readme[:m[2]], "\n") + 1
		lines := strings.Split(strings.TrimSuffix(readme[m[2]:m[3]], "\n"), "\n")
		var b readmeBlock
		for i := 0; i < len(lines); i++ {
			start := i
			cmd := lines[i]
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			trimmed := strings.TrimSpace(cmd)
			if n := needsRE.FindStringSubmatch(trimmed); n != nil && len(b.cmds) == 0 {
				for _, tool := range strings.Split(n[1], ",") {
					if tool = strings.TrimSpace(tool); tool != "" {
						b.needs = append(b.needs, tool)
					}
				}
				continue
			}
			if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.Contains(cmd, readmeSlow) {
				continue
			}
			if len(b.cmds) == 0 {
				b.line = first + start
			}
			b.cmds = append(b.cmds, readmeLine{first + start, cmd})
		}
		if len(b.cmds) > 0 {
			out = append(out, b)
		}
	}
	return out
}

// readmePrelude bounds every perflab and go command, names a command that
// fails by its README line, and times each command.
var readmePrelude = fmt.Sprintf(`set -eE -o pipefail
readme_line=0
trap 'echo "readme: README line $readme_line failed (exit $?)" >&2; exit 1' ERR
readme_now() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
readme_begin() { readme_line=$1; readme_t0=$(readme_now); echo "readme: line $1: $2" >&2; }
readme_end() { echo "readme: line $readme_line took $(( $(readme_now) - readme_t0 )) ms" >&2; }
readme_bounded() {
  local rc=0
  timeout -s INT -k 10 %[1]d "$@" || rc=$?
  [ "$rc" -eq 124 ] && echo "readme: README line $readme_line ran past %[1]d s" >&2
  return "$rc"
}
perflab() {
  if [ "${1:-}" = ui ]; then
    local rc=0
    timeout -s INT %[2]d perflab "$@" || rc=$?
    [ "$rc" -eq 124 ] && return 0
    echo "readme: perflab ui exited (exit $rc) before it was interrupted" >&2
    return 1
  fi
  readme_bounded perflab "$@"
}
go() { readme_bounded go "$@"; }
`, int(readmeCommandLimit.Seconds()), int(readmeUILimit.Seconds()))

// script is the block as one bash script.
func (b readmeBlock) script() string {
	var s strings.Builder
	s.WriteString(readmePrelude)
	for _, c := range b.cmds {
		fmt.Fprintf(&s, "readme_begin %d %s\n%s\nreadme_end\n", c.line, shellQuote(firstLine(c.text)), c.text)
	}
	return s.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// shellQuote quotes s for sh: in single quotes, each quote in s closed,
// escaped and opened again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestReadmeBlocks: the README's blocks become scripts, a continued line
// joined, slow commands and indented blocks left out, a block's needs
// read.
func TestReadmeBlocks(t *testing.T) {
	readme := "# x\n\n```sh\n.ci/test   # the tests (slow: 25 minutes)\nperflab run \\\n  -d 5s http://x/\n\necho 'a $b'\n```\n\n" +
		"```sh\n# needs: gunicorn, py-spy (.ci/setup installs them)\ngunicorn app:app\n```\n\n" +
		"- a list item:\n\n  ```sh\n  kubectl apply -f x.yaml\n  ```\n\n```sh\ngo build -pgo=x   # (slow: a build)\n```\n"
	bs := readmeBlocks(readme)
	if len(bs) != 2 {
		t.Fatalf("%d blocks; want 2: %+v", len(bs), bs)
	}
	if bs[0].line != 5 || len(bs[0].cmds) != 2 || bs[0].cmds[1].line != 8 || bs[0].needs != nil {
		t.Errorf("first block %+v; want the run from line 5 and the echo from line 8", bs[0])
	}
	if !slices.Equal(bs[1].needs, []string{"gunicorn", "py-spy"}) || bs[1].line != 13 {
		t.Errorf("second block %+v; want line 13, needing gunicorn and py-spy", bs[1])
	}
	s := bs[0].script()
	for _, want := range []string{
		"readme_begin 5 'perflab run \\'\nperflab run \\\n  -d 5s http://x/\nreadme_end\n",
		"readme_begin 8 'echo '\\''a $b'\\'''\necho 'a $b'\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the script lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, ".ci/test") {
		t.Errorf("the script runs a slow command:\n%s", s)
	}
	for _, b := range bs {
		if out, err := exec.Command("bash", "-n", "-c", b.script()).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v: %s", err, out)
		}
	}
}

// TestReadme runs every command of the README that takes under a minute,
// as written (see readmeBlocks), and fails naming the first command that
// fails, with its output. It takes about three minutes.
func TestReadme(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the README (about 3 minutes)")
	}
	labtest.RequireRoot(t, "the README's runs put services in cgroups and profile them")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(readme))
	readmePortsFree(t, blocks)
	work := readmeCopy(t, root)
	env := readmeEnv(t, work)
	ctx, cancel := context.WithTimeout(context.Background(), readmeTestLimit)
	defer cancel()
	// The clone's packages compile once, here: the go build cache keys a
	// package by its directory, so none of the repository's builds serve
	// the clone, and the README's first command would otherwise time the
	// compiler along with the demo.
	build := exec.CommandContext(ctx, "go", "build", "./cmd/perflab", "./examples/server")
	build.Dir, build.Env = work, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in the clone: %v\n%s", err, out)
	}
	var took []string
	for _, b := range blocks {
		ok := t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
			for _, tool := range b.needs {
				labtest.NeedTool(t, tool, "")
			}
			took = append(took, runReadmeBlock(ctx, t, b, work, env)...)
		})
		if !ok {
			break // the blocks after it may build on what it made
		}
	}
	t.Logf("each command's time:\n%s", strings.Join(took, "\n"))
}

var tookRE = regexp.MustCompile(`^readme: line (\d+) took (\d+) ms$`)

// runReadmeBlock runs b in a bash of its own, in work, and returns each
// command's line and time. Whatever the block left running (a service it
// started with &) is killed when it ends.
func runReadmeBlock(ctx context.Context, t *testing.T, b readmeBlock, work string, env []string) []string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-c", b.script())
	cmd.Dir, cmd.Env = work, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	// One writer for both streams: exec.Cmd then writes to it from one
	// goroutine at a time.
	var w io.Writer = &out
	if testing.Verbose() {
		w = io.MultiWriter(&out, os.Stdout)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var took []string
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := tookRE.FindStringSubmatch(sc.Text()); m != nil {
			ms, _ := strconv.Atoi(m[2])
			took = append(took, fmt.Sprintf("  README line %s: %.1f s", m[1], float64(ms)/1000))
		}
	}
	if err != nil {
		failed := "the block"
		if m := regexp.MustCompile(`readme: README line (\d+) failed`).FindStringSubmatch(out.String()); m != nil {
			n, _ := strconv.Atoi(m[1])
			for _, c := range b.cmds {
				if c.line == n {
					failed = fmt.Sprintf("README line %d: %s", n, c.text)
				}
			}
		}
		t.Errorf("%s: %v\n%s", failed, err, tail(out.String(), 60))
	}
	return took
}

var readmePortRE = regexp.MustCompile(`127\.0\.0\.1:(\d+)`)

// readmePortsFree fails the test at once when a port the README's commands
// bind is taken: each of them would fail, for a reason of the machine's.
func readmePortsFree(t *testing.T, blocks []readmeBlock) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range blocks {
		for _, c := range b.cmds {
			for _, m := range readmePortRE.FindAllStringSubmatch(c.text, -1) {
				if seen[m[1]] || m[1] == "0" {
					continue
				}
				seen[m[1]] = true
				ln, err := net.Listen("tcp", m[0])
				if err != nil {
					t.Fatalf("port %s, which the README's examples use, is taken on this machine: %v", m[0], err)
				}
				ln.Close()
			}
		}
	}
}

// readmeEnv is the environment of the README's commands: the test's, with
// the clone's root first in PATH (as the Install block's export puts it),
// and per-user directories of perflab's (XDG's) in the test's temporary
// directory, so that the README's runs neither see nor add to the user's.
// The go command keeps its own caches and settings.
func readmeEnv(t *testing.T, work string) []string {
	t.Helper()
	keep := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV", "GOFLAGS", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		keep[k] = strings.TrimSpace(string(out))
	}
	home := t.TempDir()
	keep["XDG_CACHE_HOME"] = filepath.Join(home, "cache")
	keep["XDG_DATA_HOME"] = filepath.Join(home, "data")
	keep["XDG_STATE_HOME"] = filepath.Join(home, "state")
	keep["XDG_CONFIG_HOME"] = filepath.Join(home, "config")
	keep["PATH"] = work + string(os.PathListSeparator) + os.Getenv("PATH")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); keep[k] == "" {
			env = append(env, kv)
		}
	}
	for k, v := range keep {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// readmeCopy clones the repository at root into a temporary directory and
// commits the working tree's files (tracked and untracked, not ignored) on
// top, so the README runs against the tree as it is, and its --git ranges
// (HEAD~1..HEAD) resolve.
func readmeCopy(t *testing.T, root string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "perflab")
	git := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git(root, "clone", "--quiet", root, work)
	for _, f := range strings.Split(strings.TrimRight(git(root, "ls-files", "-co", "--exclude-standard", "-z"), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link the clone has
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(work, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if strings.TrimSpace(git(work, "status", "--porcelain")) != "" {
		git(work, "add", "-A")
		git(work, "-c", "user.name=perflab", "-c", "user.email=perflab@localhost", "commit", "--quiet", "-m", "the working tree")
	}
	return work
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
