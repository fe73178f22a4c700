package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// perflab run as an unprivileged user cannot load kernel programs: the
// batch program's measuring cost says kernel tracing did not run and
// why, never "kernel tracing 0.0 µs".
func TestBatchRunAsNobodySaysWhatWasNotMeasured(t *testing.T) {
	labtest.RequireRoot(t, "switching to user nobody")
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatalf("setpriv (util-linux) is needed to run perflab as another user: %v", err)
	}
	// perflab and a store that user nobody can run and write.
	dir, err := os.MkdirTemp("", "nobody-") // t.TempDir's parent is root's alone
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "perflab")
	if err := copyExecutable(buildPerflab(t), bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
		bin, "run", "--dir", filepath.Join(dir, "runs"), "--", "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("perflab run as nobody: %v\n%s", err, out)
	}
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "Measuring:") {
			line = l
		}
	}
	if !strings.Contains(line, "kernel tracing not run: not root (uid 65534)") || strings.Contains(line, "kernel tracing 0.0") {
		t.Errorf("measuring line %q; want kernel tracing not run, with why\n%s", line, out)
	}
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
