package demo

// Smoke test of rsscount, the batch program of the execution-tracing
// lesson: both modes count the same, from documents it writes or reads.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runBatch runs the test program bin with args, bounded to two minutes,
// and returns its exit code, stdout and stderr.
func runBatch(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestServiceRsscount writes 300 documents, counts the term in them in
// both modes, from the written directory and from documents the program
// writes itself, and checks the count against the documents' rule (item k
// of document d mentions the term when (d+k)%9 == 0 or (d*7+k)%5 == 0).
func TestServiceRsscount(t *testing.T) {
	const docs, items = 300, 24
	bin := moreServices.Binary(t, "rsscount")
	found := 0
	for d := range docs {
		for k := range items {
			if (d+k)%9 == 0 || (d*7+k)%5 == 0 {
				found++
			}
		}
	}
	want := fmt.Sprintf("Searching %d files, found president %d times.\n", docs, found)
	dir := t.TempDir()
	if code, _, stderr := runBatch(t, bin, "-write", dir, "-n", fmt.Sprint(docs)); code != 0 {
		t.Fatalf("rsscount -write: exit %d: %s", code, stderr)
	}
	for _, mode := range []string{"buggy", "fixed"} {
		for _, source := range [][]string{{"-dir", dir}, {"-n", fmt.Sprint(docs)}} {
			args := append([]string{"-mode", mode}, source...)
			code, stdout, stderr := runBatch(t, bin, args...)
			if code != 0 || stdout != want {
				t.Errorf("rsscount %q: exit %d, %q (stderr %q); want 0 and %q", args, code, stdout, stderr, want)
			}
		}
	}
	for _, bad := range [][]string{{"-mode", "slow"}, {"-n", "0"}, {"-term", ""}, {"extra"}} {
		if code, _, stderr := runBatch(t, bin, bad...); code != 2 || stderr == "" {
			t.Errorf("rsscount %q: exit %d, stderr %q; want 2 and a message", bad, code, stderr)
		}
	}
	if code, _, stderr := runBatch(t, bin, "-dir", t.TempDir()); code != 1 {
		t.Errorf("rsscount -dir EMPTY: exit %d, stderr %q; want 1", code, stderr)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "cut.xml"), []byte("<rss><channel><item><title>pres"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"buggy", "fixed"} {
		if code, _, stderr := runBatch(t, bin, "-mode", mode, "-dir", broken); code != 1 || !strings.Contains(stderr, "cut.xml") {
			t.Errorf("rsscount -mode %s of a cut document: exit %d, stderr %q; want 1 naming it", mode, code, stderr)
		}
	}
}
