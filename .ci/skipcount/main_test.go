package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// events builds go test -json lines: each entry is action, test, output.
func events(pkg string, es ...[3]string) string {
	var b strings.Builder
	for _, e := range es {
		out := ""
		if e[2] != "" {
			out = `,"Output":` + quote(e[2])
		}
		test := ""
		if e[1] != "" {
			test = `,"Test":"` + e[1] + `"`
		}
		b.WriteString(`{"Action":"` + e[0] + `","Package":"` + pkg + `"` + test + out + "}\n")
	}
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fullRun is a run in which two tests skip for py-spy, one for root, one
// under a message of its own, one passes and one fails.
var fullRun = events("perflab/internal/lab",
	[3]string{"run", "TestSpy", ""},
	[3]string{"output", "TestSpy", "=== RUN   TestSpy\n"},
	[3]string{"output", "TestSpy", "    stuck_test.go:155: perflab-skip: tool=py-spy: py-spy not installed (.ci/setup installs it)\n"},
	[3]string{"output", "TestSpy", "--- SKIP: TestSpy (0.00s)\n"},
	[3]string{"skip", "TestSpy", ""},
	[3]string{"output", "TestFrameworks/uvicorn", "    frameworks_test.go:68: perflab-skip: tool=py-spy: py-spy not installed\n"},
	[3]string{"skip", "TestFrameworks/uvicorn", ""},
	[3]string{"output", "TestRoot", "    batch_test.go:37: perflab-skip: host=root: needs root: cgroups\n"},
	[3]string{"skip", "TestRoot", ""},
	[3]string{"output", "TestHelper", "=== RUN   TestHelper\n"},
	[3]string{"output", "TestHelper", "    attribution_test.go:70: run by TestCPUPerRequestWithOtherClients\n"},
	[3]string{"output", "TestHelper", "--- SKIP: TestHelper (0.00s)\n"},
	[3]string{"skip", "TestHelper", ""},
	[3]string{"output", "TestFine", "    fine_test.go:9: all good\n"},
	[3]string{"pass", "TestFine", ""},
	[3]string{"output", "TestBroken", "=== RUN   TestBroken\n"},
	[3]string{"output", "TestBroken", "    broken_test.go:3: want 1, got 2\n"},
	[3]string{"output", "TestBroken", "--- FAIL: TestBroken (0.01s)\n"},
	[3]string{"fail", "TestBroken", ""},
	[3]string{"output", "", "FAIL\n"},
	[3]string{"output", "", "FAIL\tperflab/internal/lab\t0.02s\n"},
	[3]string{"fail", "", ""},
)

// shortRun is the -short run: the py-spy test skips again (counted once
// in the would-skip line) and two skip under -short.
var shortRun = events("perflab/internal/lab",
	[3]string{"output", "TestSpy", "    stuck_test.go:155: perflab-skip: tool=py-spy: py-spy not installed\n"},
	[3]string{"skip", "TestSpy", ""},
	[3]string{"output", "TestSlowA", "    a_test.go:1: acceptance: runs a service\n"},
	[3]string{"skip", "TestSlowA", ""},
	[3]string{"output", "TestSlowB", "    b_test.go:1: runs real benchmarks\n"},
	[3]string{"skip", "TestSlowB", ""},
	[3]string{"pass", "TestFine", ""},
)

func writeRuns(t *testing.T) (short, full string) {
	t.Helper()
	dir := t.TempDir()
	short, full = filepath.Join(dir, "short.json"), filepath.Join(dir, "full.json")
	if err := os.WriteFile(short, []byte(shortRun), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(fullRun), 0o644); err != nil {
		t.Fatal(err)
	}
	return short, full
}

func TestReportOnCI(t *testing.T) {
	short, full := writeRuns(t)
	var out bytes.Buffer
	err := run([]string{"report", "-ci", "-short", "race -short", "race -short=" + short, "full=" + full}, nil, &out)
	if err != errMissing {
		t.Errorf("report -ci: %v; want errMissing", err)
	}
	got := out.String()
	t.Logf("\n%s", got)
	for _, want := range []string{
		"  race -short   full  reason\n",
		"            1      2  py-spy missing (tool)\n",
		"            -      1  root missing (host)\n",
		"            2      -  untagged: -short, or a reason of the test's own\n",
		"            -      1  untagged: run by TestCPUPerRequestWithOtherClients\n",
		"race -short: 1 passed, 0 failed, 3 skipped\n",
		"full: 1 passed, 1 failed, 4 skipped\n",
		"py-spy missing: 2 tests would skip\n",
		"root missing: 1 test skip (what this machine is: not a failure)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Index(got, "py-spy missing (tool)") > strings.Index(got, "root missing (host)") {
		t.Errorf("the reason with the most tests is not first")
	}
}

func TestReportOffCI(t *testing.T) {
	short, full := writeRuns(t)
	var out bytes.Buffer
	if err := run([]string{"report", "-short", "short", "short=" + short, "full=" + full}, nil, &out); err != nil {
		t.Errorf("report without -ci: %v; want the table and no error", err)
	}
	if !strings.Contains(out.String(), "py-spy missing: 2 tests would skip") {
		t.Errorf("report without -ci does not say what would skip:\n%s", out.String())
	}
	host := events("perflab/internal/x", [3]string{"output", "TestRoot", "    a_test.go:1: perflab-skip: host=root: needs root: cgroups\n"}, [3]string{"skip", "TestRoot", ""})
	f := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(f, []byte(host), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"report", "-ci", "full=" + f}, nil, &out); err != nil {
		t.Errorf("report -ci of a host skip: %v; want no failure\n%s", err, out.String())
	}
	out.Reset()
	if err := run([]string{"report", "-ci", "-require-host", "root", "full=" + f}, nil, &out); err != errMissing || !strings.Contains(out.String(), "root missing: 1 test would skip\n") {
		t.Errorf("report -ci -require-host root of a root skip: %v; want errMissing\n%s", err, out.String())
	}
	clean := events("perflab/internal/x", [3]string{"pass", "TestA", ""})
	f = filepath.Join(t.TempDir(), "clean.json")
	if err := os.WriteFile(f, []byte(clean), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"report", "-ci", "full=" + f}, nil, &out); err != nil || !strings.Contains(out.String(), "  (none)\nfull: 1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("a run without skips: %v\n%s", err, out.String())
	}
}

// TestRender: a plain go test's output: the failed test's lines and the
// package's, nothing of the tests that passed or skipped; lines that are
// not events are copied.
func TestRender(t *testing.T) {
	in := "go: downloading example.com/x v1.0.0\n" + fullRun + events("perflab/internal/cli",
		[3]string{"output", "TestHang", "=== RUN   TestHang\n"},
		[3]string{"output", "TestHang", "    hang_test.go:5: waiting\n"},
		[3]string{"output", "", "panic: test timed out after 20m0s\n"},
		[3]string{"fail", "", ""},
	)
	var out bytes.Buffer
	if err := run([]string{"render"}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "go: downloading example.com/x v1.0.0\n" +
		"=== RUN   TestBroken\n    broken_test.go:3: want 1, got 2\n--- FAIL: TestBroken (0.01s)\n" +
		"FAIL\nFAIL\tperflab/internal/lab\t0.02s\n" +
		"panic: test timed out after 20m0s\n" +
		"--- unfinished: TestHang\n=== RUN   TestHang\n    hang_test.go:5: waiting\n"
	if out.String() != want {
		t.Errorf("render printed:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{nil, {"tally"}, {"report"}, {"report", "full"}, {"report", "full=/no/such/file"}} {
		if err := run(args, nil, &bytes.Buffer{}); err == nil || err == errMissing {
			t.Errorf("skipcount %q: %v; want a usage error", args, err)
		}
	}
}

// TestSkipped: the pattern names each top-level test that skipped or has
// a subtest that skipped, once, and matches none when nothing skipped.
func TestSkipped(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		events, want string
	}{
		{events("perflab/internal/lab",
			[3]string{"skip", "TestSlow", ""},
			[3]string{"pass", "TestQuick", ""},
			[3]string{"skip", "TestMixed/postgres", ""},
			[3]string{"pass", "TestMixed/sqlite", ""},
			[3]string{"pass", "TestMixed", ""},
			[3]string{"skip", "TestSlow", ""},
		) + events("perflab/internal/cli", [3]string{"skip", "TestA.b", ""}), `^(TestA\.b|TestMixed|TestSlow)$`},
		{events("perflab/internal/lab", [3]string{"pass", "TestQuick", ""}), "^$"},
	} {
		path := filepath.Join(dir, "events.json")
		if err := os.WriteFile(path, []byte(tc.events), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run([]string{"skipped", path}, nil, &out); err != nil || out.String() != tc.want+"\n" {
			t.Errorf("skipped = %q, %v; want %q", out.String(), err, tc.want)
		}
	}
	if err := run([]string{"skipped"}, nil, &bytes.Buffer{}); err == nil {
		t.Error("skipped without a file: no error")
	}
}
