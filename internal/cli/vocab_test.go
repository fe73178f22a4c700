package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestRunWithAnUnknownWordIsBadInput: the commands that read runs refuse a
// run.json with a word no vocabulary knows (a hand edit, a newer perflab
// of the same schema) with one line that names the field and the word, and
// exit 2.
func TestRunWithAnUnknownWordIsBadInput(t *testing.T) {
	root := t.TempDir()
	a := writeTestRun(t, root, "a", "", 0, 1, 100)
	dir, b, err := store.Store{Root: root}.Create("b", time.Date(2025, 3, 4, 5, 6, 1, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "b", ID: b, Status: runfmt.StatusComplete,
		Config:   runfmt.Config{URL: "http://127.0.0.1:8080/search", Command: []string{"./b"}, CPUs: 1},
		Load:     &runfmt.LoadResult{Model: "closed", Requests: 1000, RPS: 100},
		Target:   &runfmt.TargetSummary{CPUMsPerRequest: 1},
		Findings: []runfmt.Finding{{Kind: runfmt.FindingGC}, {Kind: runfmt.FindingOffCPU}, {Kind: "foo"}},
		Profiles: []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz"}}}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, runfmt.FileName) + `: findings[2].kind: unknown finding kind "foo"`
	for _, args := range [][]string{
		{"runs", "show", "--dir", root, b},
		{"compare", "--dir", root, a, b},
		{"top", "--dir", root, b},
		{"flame", "--dir", root, "-o", filepath.Join(t.TempDir(), "f.html"), b},
		{"top", "--dir", root, dir},
	} {
		code, _, errb := runMain(t, args...)
		if code != int(ExitUsage) || !strings.Contains(errb, want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("perflab %s: exit %d, %q; want exit 2 and one line with %q", strings.Join(args, " "), code, errb, want)
		}
	}
}
