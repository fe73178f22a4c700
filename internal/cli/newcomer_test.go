package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestNewcomerMistakes: the five mistakes a first run most often makes,
// each answered within 2 s by one line that says what to do: the
// service's flags given without the -- before its command, a URL on
// another port than the one the service says it listens on, a program
// not built, a --pprof on the wrong port while the service serves pprof
// on another, and a URL without http://.
func TestNewcomerMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("launches a service for three of the mistakes")
	}
	labtest.RequireRoot(t, "the runs launch the service in a cgroup")
	bin := labtest.BuildService(t, "hello")
	addr, pprofAddr, other := labtest.FreeAddr(t), labtest.FreeAddr(t), labtest.RefusedAddr(t)
	svc := []string{bin, "-addr", addr, "-pprof-addr", pprofAddr}
	url := "http://" + addr + "/"
	for _, tc := range []struct {
		name string
		args []string
		code ExitCode
		fix  string
	}{
		{"no -- before the command", append([]string{"run", url}, svc...), ExitUsage,
			url + " -- " + bin + " -addr " + addr},
		{"the URL's port is not the service's", append([]string{"run", "http://" + other + "/", "--"}, svc...), ExitFailed,
			"give " + url},
		{"the program is not built", []string{"run", url, "--", "./no-such-server"}, ExitFailed,
			`"./no-such-server": no such file or directory: build it first`},
		{"--pprof on the wrong port", append([]string{"run", "--pprof", "http://" + other + "/debug/pprof/", url, "--"}, svc...), ExitUsage,
			"give --pprof http://" + pprofAddr},
		{"no http:// before the host", append([]string{"run", addr + "/", "--"}, svc...), ExitUsage,
			"give " + url},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{tc.args[0], "--dir", filepath.Join(t.TempDir(), "runs"), "-d", "1s"}, tc.args[1:]...)
			start := time.Now()
			code, _, errb := runMain(t, args...)
			took := time.Since(start)
			lines := strings.Split(strings.TrimSpace(errb), "\n")
			last := lines[len(lines)-1]
			if code != int(tc.code) || !strings.HasPrefix(last, "perflab: ") || !strings.Contains(last, tc.fix) {
				t.Errorf("perflab %s: exit %d, last line %q; want exit %d and one line with %q\nstderr:\n%s",
					strings.Join(args, " "), code, last, tc.code, tc.fix, errb)
			}
			if took > 2*time.Second {
				t.Errorf("answered in %v; want within 2 s", took.Round(time.Millisecond))
			}
		})
	}
}
