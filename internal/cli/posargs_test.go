package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A missing positional argument is named as the usage names it, and an
// extra one says what the command takes: never cobra's "accepts 1 arg(s),
// received 0".
func TestMissingArgumentsAreNamed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"top"}, "perflab top: missing PROFILE or RUN"},
		{[]string{"flame", "-o", dir + "/f.html"}, "perflab flame: missing PROFILE or RUN"},
		{[]string{"list"}, "perflab list: missing REGEX"},
		{[]string{"merge"}, "perflab merge: missing SHARD.json"},
		{[]string{"runs", "show", "--dir", dir}, "perflab runs show: missing RUN"},
		{[]string{"compare", "--dir", dir}, "perflab compare: missing BASE and NEW"},
		{[]string{"compare", "--dir", dir, "a"}, "perflab compare: missing NEW"},
		{[]string{"compare", "--dir", dir, "--baseline", "main"}, "perflab compare: missing NEW"},
		{[]string{"top", "a", "b"}, `perflab top: unexpected argument b: it takes PROFILE|RUN`},
		{[]string{"list", "re", "a", "b"}, `perflab list: unexpected argument b: it takes REGEX [RUN|PROFILE]`},
		{[]string{"compare", "--dir", dir, "--baseline", "main", "a", "b"}, `perflab compare: with --baseline, give NEW only`},
		{[]string{"runs", "--dir", dir, "x"}, `perflab runs: unexpected argument x: it takes no arguments`},
		{[]string{"ui", "x y"}, `perflab ui: unexpected argument "x y": it takes no arguments`},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		if code != int(ExitUsage) || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

// Every command that checks its positional arguments does it with
// positional: none answers in cobra's words.
func TestNoCommandCountsArgsInCobrasWords(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Args != nil {
			for _, args := range [][]string{nil, {"a", "b", "c", "d", "e", "f", "g"}} {
				if err := c.Args(c, args); err != nil && strings.Contains(err.Error(), "arg(s)") {
					t.Errorf("%s with %d arguments: %v; want the arguments named (positional)", c.CommandPath(), len(args), err)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(Env{Getenv: func(string) string { return "" }}))
}
