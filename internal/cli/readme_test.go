package cli

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"perflab/internal/load"
)

// readmeCommand is one perflab command of the README: its line, as
// written, and its words as a shell splits them.
type readmeCommand struct {
	line  string
	words []string
}

var fenceRE = regexp.MustCompile("(?s)```sh\n(.*?)```")

// readmeCommands are the perflab commands of the sh blocks of the README
// and of the pages of docs/, a line continued by a backslash joined to the
// next.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeCommand
	for _, page := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, shCommands(t, filepath.Base(page), string(b))...)
	}
	return out
}

// shCommands are the perflab commands of the sh blocks of a page.
func shCommands(t *testing.T, page, text string) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	for _, m := range fenceRE.FindAllStringSubmatch(text, -1) {
		block := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			words, err := shellWords(line)
			if err != nil {
				t.Errorf("%s: %q: %v", page, line, err)
				continue
			}
			if len(words) > 0 && (words[0] == "perflab" || strings.HasPrefix(words[0], "./perflab")) {
				out = append(out, readmeCommand{page + ": " + line, words[1:]})
			}
		}
	}
	return out
}

// readmeVars stand for what a README command takes from its shell: the
// pid of a service it started ($!, $server) and $P, the address of a
// service's pprof.
var readmeVars = map[string]string{"$!": "4242", "$server": "4242", "$P": "127.0.0.1:6060"}

// shellWords splits a line as sh does for the README's commands: quotes
// ('…' literal, "…" without expansion), backslash escapes, a comment from
// an unquoted #, and a redirection (>), a pipe (|), a background job (&)
// or a list (;) ending the command;
// the variables of readmeVars are replaced. It is the README's subset of
// sh, not a shell: a line it cannot split is an error.
func shellWords(line string) ([]string, error) {
	for k, v := range readmeVars {
		line = strings.ReplaceAll(line, k, v)
	}
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != c {
				j++
			}
			if j == len(rs) {
				return nil, errUnclosedQuote
			}
			cur.WriteString(string(rs[i+1 : j]))
			i, inWord = j, true
		case c == '\\' && i+1 < len(rs):
			cur.WriteRune(rs[i+1])
			i++
			inWord = true
		case c == '#' && !inWord, c == '>' || c == '|' || c == '&' || c == ';':
			flush()
			return words, nil
		case unicode.IsSpace(c):
			flush()
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

var errUnclosedQuote = errors.New("an unclosed quote")

// TestShellWords: the README's shell is split as sh would split it.
func TestShellWords(t *testing.T) {
	for line, want := range map[string][]string{
		`perflab run --slo "p99<100ms,errors<1%" http://x/ -- ./server -addr 127.0.0.1:8080`: {"perflab", "run", "--slo", "p99<100ms,errors<1%", "http://x/", "--", "./server", "-addr", "127.0.0.1:8080"},
		`perflab runs rm '20261121-0638*'   # a glob`:                                        {"perflab", "runs", "rm", "20261121-0638*"},
		`perflab flame --format collapsed latest > cpu.folded`:                               {"perflab", "flame", "--format", "collapsed", "latest"},
		`perflab run --pid $! http://127.0.0.1:8000/`:                                        {"perflab", "run", "--pid", "4242", "http://127.0.0.1:8000/"},
		`perflab list 'handlers\.' x`:                                                        {"perflab", "list", `handlers\.`, "x"},
		`perflab load -d 2s http://x/ & server=$!`:                                           {"perflab", "load", "-d", "2s", "http://x/"},
		`# only a comment`: nil,
	} {
		got, err := shellWords(line)
		if err != nil || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("shellWords(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	if _, err := shellWords(`perflab run "p99`); err == nil {
		t.Error("an unclosed quote split without an error")
	}
}

// TestReadmeCommandsParse: every perflab command of the README and of
// docs/ names a command perflab has, with flags it has and values they
// accept, and arguments its command takes (parsed as perflab parses them,
// without running them).
func TestReadmeCommandsParse(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 60 {
		t.Fatalf("found %d perflab commands in the README and docs/; want their 60 or more", len(cmds))
	}
	env, _, _ := testEnv()
	t.Chdir(filepath.Join("..", "..")) // the README's commands run from the repository's root
	for _, c := range cmds {
		root := newRoot(env)
		cmd, rest, err := root.Find(withGoTestFlags(c.words))
		if err != nil || cmd == root {
			t.Errorf("%s: names no perflab command (%v)", c.line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			t.Errorf("%s: %v", c.line, err)
		}
	}
}

// TestReadmeShowsTheExampleTargetsFile: the targets file the README shows
// is examples/targets.txt as shipped, and it parses, its body file found.
func TestReadmeShowsTheExampleTargetsFile(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "examples", "targets.txt")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(file)+"```") {
		t.Error("the README's targets file is not examples/targets.txt as shipped")
	}
	ts, err := load.ParseTargets(strings.NewReader(string(file)), filepath.Dir(path))
	if err != nil || len(ts) != 3 {
		t.Errorf("examples/targets.txt: %d targets, %v; want its 3", len(ts), err)
	}
}
