package labtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Golden compares got with testdata/NAME.golden, NAME being the test's
// name (a subtest's makes a directory) and ext what the writer wrote
// (".txt", ".md", ".html"); update (the test package's -update flag)
// rewrites the file. On a mismatch it leaves got beside the golden
// (NAME.got) and shows the difference with diff -u; when diff itself fails
// (missing, an error) the test fails for that too, so a broken tool never
// hides a difference.
func Golden(t testing.TB, ext string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", t.Name()+ext+".golden")
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotPath := filepath.Join("testdata", t.Name()+ext+".got")
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("diff", "-u", path, gotPath).CombinedOutput()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("output differs from %s (see %s), and diff failed: %v\n%s", path, gotPath, err, out)
	}
	t.Errorf("output differs from %s (see %s; -update rewrites it):\n%s", path, gotPath, out)
}
