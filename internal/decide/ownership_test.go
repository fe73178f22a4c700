package decide

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestProjectRootBehindWrappers: the script a service runs decides the
// project root whether it is an argument, a word of sh -c, or only in the
// command line of the process a launcher started.
func TestProjectRootBehindWrappers(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "app", "server.py")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("import time\ntime.sleep(30)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Dir(script)
	for _, cmd := range [][]string{
		{"python3", script},
		{"sh", "-c", "exec python3 " + script + " --addr 127.0.0.1:1"},
		{"python3", "app/server.py"},
	} {
		root, from := ProjectRoot(cmd, dir, nil)
		if root != want || !strings.Contains(from, "script the command runs") {
			t.Errorf("ProjectRoot(%q) = %q from %q; want %q from the command's script", cmd, root, from, want)
		}
	}

	// A launcher perflab cannot read into: the process's own command line.
	sleeper := filepath.Join(dir, "app", "sleep.rb")
	if err := os.WriteFile(sleeper, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := exec.Command("sh", "-c", "sleep 30", "sleep.rb")
	p.Dir = filepath.Dir(sleeper)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Process.Kill(); _ = p.Wait() }()
	var root, from string
	labtest.Until(5*time.Second, func() bool {
		root, from = ProjectRoot([]string{"./launch"}, "", []int{p.Process.Pid})
		return root == want
	})
	if root != want || !strings.Contains(from, "pid") {
		t.Errorf("projectRoot of a launcher's process = %q from %q; want %q from its command line", root, from, want)
	}
	if root, from := ProjectRoot([]string{"./launch"}, "", nil); root != "" {
		t.Errorf("projectRoot with nothing to read = %q from %q; want none", root, from)
	}
}
