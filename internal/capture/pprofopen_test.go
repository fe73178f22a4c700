package capture

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// TestGoToolPprofOpens writes profiles built from perf script and py-spy
// output as .pb.gz and opens them with `go tool pprof -top`.
func TestGoToolPprofOpens(t *testing.T) {
	gobin := labtest.NeedTool(t, "go", "")
	for _, tc := range []struct{ file, want string }{ // want: a line of the top output
		{"testdata/perfscript/cpp.txt", "perflab::Acc::add"},
		{"testdata/perfscript/cpp.txt", "File: cpp\n"},
		{"testdata/perfscript/jit.txt", "perflab_jit_spin"},
		{"testdata/collapsed/pyspy.txt", "JSONEncoder.iterencode"},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		var p interface{ Write(w io.Writer) error }
		if strings.Contains(tc.file, "collapsed") {
			p, err = ParseCollapsed(f, 5_000_000)
		} else {
			p, err = ParsePerfScript(f)
		}
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "p.pb.gz")
		w, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(w); err != nil {
			t.Fatal(err)
		}
		w.Close()
		cmd := exec.Command(gobin, "tool", "pprof", "-top", out)
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
		top, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(top), tc.want) {
			t.Errorf("go tool pprof -top %s (from %s): %v; want %s in:\n%s", out, tc.file, err, tc.want, top)
		}
	}
}
