package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDeployBadInput: a pid or cgroup that cannot be a service, and bad
// --src and --user-code values, are one line and exit 2, before anything
// runs.
func TestDeployBadInput(t *testing.T) {
	empty := ""
	if os.Geteuid() == 0 {
		dir := filepath.Join("/sys/fs/cgroup/cpuacct", "perflab-clitest-"+strconv.Itoa(os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err == nil {
			defer os.Remove(dir)
			empty = dir
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--pid", "2", "http://127.0.0.1:1/"}, "--pid 2 is a kernel thread"},
		{[]string{"profile", "--pid", "2"}, "--pid 2 is a kernel thread"},
		{[]string{"run", "--pid", "1073741824", "http://127.0.0.1:1/"}, "--pid 1073741824: must be from 1 to"},
		{[]string{"run", "--cgroup", "/sys/fs/cgroup/perflab-no-such-group", "http://127.0.0.1:1/"}, "no such cgroup"},
		{[]string{"profile", "--cgroup", "perflab-no-such-group"}, "no such cgroup"},
		{[]string{"run", "--cgroup", "x", "--pid", "1", "http://127.0.0.1:1/"}, "give one of --cgroup, --pid and -- CMD"},
		{[]string{"run", "--src", "/nonexistent/perflab", "http://127.0.0.1:1/", "--", "true"}, "--src /nonexistent/perflab"},
		{[]string{"run", "--user-code", "(", "http://127.0.0.1:1/", "--", "true"}, "--user-code"},
		{[]string{"run", "--cgroup", empty, "http://127.0.0.1:1/"}, "has no processes"},
	} {
		if tc.want == "has no processes" && empty == "" {
			continue // needs root and a cpuacct tree
		}
		code, stdout, stderr := perflab(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || stdout != "" {
			t.Errorf("perflab %s: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", strings.Join(tc.args, " "), code, stderr, stdout, tc.want)
		}
	}
}
