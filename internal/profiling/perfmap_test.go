package profiling

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"perflab/internal/labtest"
)

func TestWithPerfMap(t *testing.T) {
	for in, want := range map[string]string{
		"":                          nodePerfFlags,
		"--max-old-space-size=512":  "--max-old-space-size=512 " + nodePerfFlags,
		"--perf-basic-prof":         "--perf-basic-prof",
		"--perf-prof --no-warnings": "--perf-prof --no-warnings",
	} {
		if got := WithPerfMap(in); got != want {
			t.Errorf("WithPerfMap(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNodePerfFlagsLeaveNoFiles: the flags perflab gives node write the
// perf map in /tmp and nothing in the service's directory.
func TestNodePerfFlagsLeaveNoFiles(t *testing.T) {
	node := labtest.NeedTool(t, "node", "")
	dir := t.TempDir()
	cmd := exec.Command(node, "-e", "function f(n){let s=0;for(let i=0;i<n;i++)s+=i;return s}; for(let i=0;i<200;i++) f(1e5)")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "NODE_OPTIONS="+nodePerfFlags)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v: %s", err, out)
	}
	defer os.Remove(filepath.Join("/tmp", "perf-"+strconv.Itoa(cmd.Process.Pid)+".map"))
	if _, err := os.Stat(filepath.Join("/tmp", "perf-"+strconv.Itoa(cmd.Process.Pid)+".map")); err != nil {
		t.Errorf("no perf map written: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("node left %v in the service's directory", left)
	}
}
