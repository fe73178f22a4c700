package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var readmeRun = flag.Bool("readme", false, "run the README's sh blocks as written, in order, in one shell (about 30 minutes; not part of .ci/test)")

// readmeRunLimit bounds the whole README's run; readmeCommandLimit bounds
// each perflab command of it but `perflab ui`, which serves until
// interrupted and is interrupted after readmeUILimit.
const (
	readmeRunLimit     = 50 * time.Minute
	readmeCommandLimit = 10 * time.Minute
	readmeUILimit      = 3 * time.Second
)

// readmeSelf is the README line the run leaves out: the test command,
// which runs this test.
const readmeSelf = ".ci/test"

// readmePrelude comes before the README's lines: every perflab command is
// bounded in time (perflab ui, a server until Ctrl-C, is interrupted once
// it has served for readmeUILimit, and passes if it was still serving),
// and the first command that fails stops the run, naming its README line.
var readmePrelude = fmt.Sprintf(`set -eE -o pipefail
readme_line=0
trap 'echo "readme-run: README line $readme_line failed (exit $?)" >&2; exit 1' ERR
perflab() {
  if [ "${1:-}" = ui ]; then
    local rc=0
    timeout -s INT %d perflab "$@" || rc=$?
    [ "$rc" -eq 124 ] && return 0
    echo "readme-run: perflab ui exited (exit $rc) before it was interrupted" >&2
    return 1
  fi
  timeout -s INT %d perflab "$@"
}
`, int(readmeUILimit.Seconds()), int(readmeCommandLimit.Seconds()))

// topFenceRE is an sh block at the start of a line: a block indented in a
// list item is a recipe for elsewhere (the Kubernetes Job's, which needs a
// cluster), not a command for this machine.
var topFenceRE = regexp.MustCompile("(?ms)^```sh\n(.*?)^```$")

// readmeScript is the README's top-level sh blocks as one bash script,
// each command preceded by the README line it starts on.
func readmeScript(readme string) string {
	var b strings.Builder
	b.WriteString(readmePrelude)
	for _, m := range topFenceRE.FindAllStringSubmatchIndex(readme, -1) {
		first := strings.Count(readme[:m[2]], "\n") + 1
		lines := strings.Split(strings.TrimSuffix(readme[m[2]:m[3]], "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			start := i
			cmd := lines[i]
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			if strings.TrimSpace(cmd) == "" || strings.HasPrefix(strings.TrimSpace(cmd), readmeSelf) {
				continue
			}
			fmt.Fprintf(&b, "readme_line=%d; echo %s >&2\n%s\n", first+start, shellQuote(fmt.Sprintf("readme-run: line %d: %s", first+start, firstLine(cmd))), cmd)
		}
	}
	b.WriteString("readme_line=0; echo 'readme-run: every command ran' >&2\n")
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// shellQuote quotes s for sh: in single quotes, each ' as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestReadmeScript: the README's blocks become one script, each command
// under its README line, the test command left out.
func TestReadmeScript(t *testing.T) {
	readme := "# x\n\n```sh\n.ci/test   # the tests\nperflab run \\\n  -d 5s http://x/\n\necho 'a $b'\n```\n\n- a list item:\n\n  ```sh\n  kubectl apply -f x.yaml\n  ```\n"
	s := readmeScript(readme)
	for _, want := range []string{
		`readme_line=5; echo 'readme-run: line 5: perflab run \' >&2` + "\nperflab run \\\n  -d 5s http://x/\n",
		`readme_line=8; echo 'readme-run: line 8: echo '\''a $b'\''' >&2` + "\necho 'a $b'\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the script lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\n.ci/test") || strings.Contains(s, "kubectl") {
		t.Errorf("the script runs the test command or an indented block:\n%s", s)
	}
	if out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v: %s", err, out)
	}
}

// TestReadmeRunsAsWritten runs every command of the README's top-level sh
// blocks as written, in order, in one bash (as a reader pasting them into
// one shell would: a `cd` or a background service of one block is there
// for the next), from the root of a copy of the repository. Each command
// must succeed; the first that fails ends the run and names its README
// line. The copy is a clone of the repository with the working tree's
// files committed on top, so that the README's --git ranges (HEAD~1..HEAD)
// resolve. The environment adds what the README's GitHub Actions step
// has: $GITHUB_STEP_SUMMARY. It takes about 30 minutes: run it with
// -readme.
func TestReadmeRunsAsWritten(t *testing.T) {
	if !*readmeRun {
		t.Skip("the README's commands take about 30 minutes: go test ./internal/cli -run TestReadmeRunsAsWritten -readme -timeout 60m -v")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	work := readmeCopy(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), readmeRunLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", readmeScript(string(readme)))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+filepath.Join(work, "step-summary.md"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	// One writer for both streams: exec.Cmd then writes to it from one
	// goroutine at a time (two writers sharing out would race on it).
	var w io.Writer = &out
	if testing.Verbose() {
		w = io.MultiWriter(&out, os.Stdout)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	// What the README left running in the background (a service it
	// started with &) ends with the test.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Errorf("the README's commands: %v\n%s", err, tail(out.String(), 40))
	}
	if failed := regexp.MustCompile(`readme-run: README line \d+ failed.*`).FindString(out.String()); failed != "" {
		t.Errorf("%s", failed)
	}
}

// readmeCopy clones the repository at root into a temporary directory and
// commits the working tree's files (tracked and untracked, not ignored) on
// top, so the README runs against the tree as it is.
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
