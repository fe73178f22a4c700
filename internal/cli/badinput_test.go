package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Input that cannot be meant is refused before anything runs: exit 2 and
// one line that names the flag or argument and what was wrong with it.
// That includes what only fails once tried (a URL that cannot be sent, a
// port nothing listens on, a file that is not a profile): the user's
// input, not a service that misbehaved (exit 3).
func TestMatrixInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notProfile, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	memory, total := "1T", hostBytes(t)
	if total >= 1<<40 {
		memory = "2048T" // more than any machine this runs on
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there now
	url := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "-q", "1e-300", url}, "--qps 1e-300: must be 0 (no cap) or from 0.001"},
		{[]string{"load", "--rate", "1e-300", url}, "--rate 1e-300 sends 1e-299 requests in 10s: give at least 0.1 per second, or a longer -d"},
		{[]string{"load", "--stages", "1s:0", url}, "--stages: the schedule sends 0 requests in its 1s"},
		{[]string{"run", "--cpus", "0.0001", url, "--", "true"}, "--cpus 0.0001 is below the cgroup minimum of 0.01 cores"},
		{[]string{"run", "--memory", memory, url, "--", "true"}, "is more than this machine's memory ("},
		{[]string{"run", "-e", "A B=1", url, "--", "true"}, `--env "A B=1": "A B" is not a variable name`},
		{[]string{"top", "--sample", "", notProfile}, `--sample "": empty`},
		{[]string{"list", "", notProfile}, `REGEX "": empty`},
		{[]string{"compare", "--fail-on", "p99>-10%", "a", "b"}, "p99 gets worse as it rises, so the rule that fires on a regression is p99>+10%"},
		{[]string{"load", "-n", "1", "http://[fe80::1%25eth0]:8080/"}, "an IPv6 zone (%eth0)"},
		{[]string{"load", "-n", "1", "http://127.0.0.1:1/a b"}, `URL "http://127.0.0.1:1/a b": a space at byte 20: write it escaped (%20)`},
		{[]string{"list", "main", notProfile}, notProfile},
		{[]string{"profile", "--dir", dir, "--pprof", dead}, "--pprof " + dead + ": connection refused"},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		if code != int(ExitUsage) || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the refused profile wrote a run: %v", ents)
	}
}

func hostBytes(t *testing.T) uint64 {
	t.Helper()
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		t.Fatal(err)
	}
	return si.Totalram * uint64(si.Unit)
}
