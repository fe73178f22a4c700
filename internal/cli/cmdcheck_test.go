package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// TestRunBadCommand: a command perflab cannot start is bad input, said
// in one line before anything runs, with exit 2: nothing after --, a
// shell builtin, an empty program name, ab's program not in PATH.
func TestRunBadCommand(t *testing.T) {
	url := "http://" + labtest.RefusedAddr(t) + "/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--"}, "no command after --"},
		{[]string{"run", url, "--"}, "no command after --"},
		{[]string{"run", url, "--", "cd", "/"}, "-- cd /: cd is a shell builtin, not a program perflab can start: run the line in a shell, as in -- sh -c 'cd / && ...'"},
		{[]string{"run", "--", "cd", "/"}, "cd is a shell builtin"},
		{[]string{"run", "--", ""}, `-- "": the program's name is empty`},
		{[]string{"run", url, "--", ""}, `-- "": the program's name is empty`},
		{[]string{"ab", "--base", "no-such-cmd-anywhere -x", "--new", "true", url}, `--base "no-such-cmd-anywhere -x": "no-such-cmd-anywhere": command not found in $PATH`},
		{[]string{"ab", "--base", "true", "--new", "no-such-cmd-anywhere"}, `--new no-such-cmd-anywhere: "no-such-cmd-anywhere": command not found in $PATH`},
		{[]string{"ab", "--base", "cd /", "--new", "true", url}, `--base "cd /": cd is a shell builtin`},
	} {
		dir := t.TempDir()
		args := append([]string{tc.args[0], "--dir", dir}, tc.args[1:]...)
		code, out, errb := runMain(t, args...)
		if code != int(ExitUsage) || !strings.HasPrefix(errb, "perflab: ") || !strings.Contains(errb, tc.want) || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("perflab %s: exit %d, stderr %q; want exit 2 and one line with %q\nstdout:\n%s", strings.Join(args, " "), code, errb, tc.want, out)
		}
		if runs, _ := filepath.Glob(filepath.Join(dir, "*")); len(runs) > 0 {
			t.Errorf("perflab %s: wrote %v; want nothing run", strings.Join(args, " "), runs)
		}
	}
}
