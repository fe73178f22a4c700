package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
)

// buildProgram builds the Go program in testdata/dir into a temporary
// directory and returns its path. It keeps the symbol table (go test and
// go run strip theirs), so perf can name its functions.
func buildProgram(t *testing.T, dir string) string {
	t.Helper()
	gobin := labtest.NeedTool(t, "go", "")
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	cmd := exec.Command(gobin, "build", "-o", bin, "./testdata/"+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/%s: %v\n%s", dir, err, out)
	}
	return bin
}

// totalSamples adds up the first value (samples/count) of p's samples.
func totalSamples(samples []*profile.Sample) int64 {
	var n int64
	for _, s := range samples {
		n += s.Value[0]
	}
	return n
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
