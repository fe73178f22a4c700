package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/files"
)

// staleEnv makes the test binary a perflab that makes a temporary
// directory, writes perf data in it and exits without removing it, as a
// perflab killed during a run does.
const staleEnv = "PERFLAB_CLI_STALE"

func init() {
	if os.Getenv(staleEnv) == "" {
		return
	}
	dir, err := files.TempDir("perflab-perf-")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "perf.data"), []byte("samples"), 0o600)
	}
	fmt.Println(dir, err)
	os.Exit(0)
}

// The next perflab, whatever its command, removes the temporary
// directories of a perflab that is gone, and keeps those of one that runs.
func TestNextRunRemovesStaleTempDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), staleEnv+"=1")
	out, err := cmd.Output()
	stale, errText, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || errText != "<nil>" {
		t.Fatalf("the stale perflab: %v: %s", err, out)
	}
	live, err := files.TempDir("perflab-perf-")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errb := perflab(t, "runs", "--dir", t.TempDir()); code != 0 {
		t.Fatalf("perflab runs: exit %d %s", code, errb)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the gone perflab's %s: %v; want it removed", stale, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("this perflab's own %s: %v; want it kept", live, err)
	}
}
