package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// writeTestRun stores a run named name with the given CPU ms per request
// and requests/s; url defaults to /search.
func writeTestRun(t *testing.T, root, name, url string, i int, cpuMs, rps float64) string {
	t.Helper()
	if url == "" {
		url = "http://127.0.0.1:8080/search"
	}
	dir, id, err := store.Store{Root: root}.Create(name, time.Date(2025, 3, 4, 5, 6, i, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: name, ID: id, Status: runfmt.StatusComplete,
		Config: runfmt.Config{URL: url, Command: []string{"./" + name}, CPUs: 1},
		Load:   &runfmt.LoadResult{Model: "closed", Requests: 1000, RPS: rps, Latency: runfmt.Latency{P50: 1, P90: 2, P99: 3 + float64(i%2)}},
		Target: &runfmt.TargetSummary{CPUMsPerRequest: cpuMs, RSSMaxBytes: 20 << 20}}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	return id
}

// twoBuilds stores 5 runs of "old" and 5 of "new", new using 30% less CPU.
func twoBuilds(t *testing.T) string {
	root := t.TempDir()
	for i := range 5 {
		writeTestRun(t, root, "old", "", i, 1.0+0.01*float64(i), 500)
		writeTestRun(t, root, "new", "", 10+i, 0.7+0.01*float64(i), 500+float64(i))
	}
	return root
}

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	env, out, errb := testEnv()
	code := Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

func TestCompareCmdText(t *testing.T) {
	root := twoBuilds(t)
	code, out, errb := runMain(t, "compare", "--dir", root, "old", "new")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"old: 5 runs", "CPU per request", "-29.4% (better)", "(p=0.008 n=5+5)", "requests/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareCmdFailOn(t *testing.T) {
	root := twoBuilds(t)
	code, out, errb := runMain(t, "compare", "--dir", root, "--fail-on", "cpu_per_request>+5%,p99>+10%", "new", "old")
	if code != int(ExitRegression) || !strings.Contains(out, "--fail-on: 1 of 2 FAILED") || !strings.Contains(errb, "cpu_per_request>+5% regressed") {
		t.Errorf("new→old: exit %d; want 1 with the failure table\n%s\n%s", code, out, errb)
	}
	if code, _, errb := runMain(t, "compare", "--dir", root, "--fail-on", "cpu_per_request>+5%", "old", "new"); code != 0 {
		t.Errorf("old→new (an improvement): exit %d; want 0: %s", code, errb)
	}
	if code, _, errb := runMain(t, "compare", "--dir", root, "--fail-on", "cpu>5%", "old", "new"); code != int(ExitUsage) || !strings.Contains(errb, "unknown metric") {
		t.Errorf("bad --fail-on: exit %d %q; want 2 naming the metric", code, errb)
	}
}

func TestCompareCmdJSONAndHTML(t *testing.T) {
	root := twoBuilds(t)
	page := filepath.Join(t.TempDir(), "cmp.html")
	code, out, errb := runMain(t, "compare", "--dir", root, "--json", "--html", page, "old", "new")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var c runfmt.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(c.Metrics) == 0 || c.Metrics[0].Name != "rps" || len(c.Base.Runs) != 5 {
		t.Errorf("--json comparison %+v; want metrics from rps and 5 base runs", c)
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "CPU per request") || !strings.Contains(errb, "comparison page: "+page) {
		t.Errorf("--html page: %v; stderr %q", err, errb)
	}
}

func TestCompareCmdGroupsAndSingleRuns(t *testing.T) {
	root := t.TempDir()
	a := writeTestRun(t, root, "a", "", 0, 1, 100)
	b := writeTestRun(t, root, "b", "", 1, 2, 100)
	c := writeTestRun(t, root, "c", "", 2, 1.1, 100)
	code, out, errb := runMain(t, "compare", "--dir", root, a, b)
	if code != 0 || !strings.Contains(out, "need >= 4 runs per side for a confident verdict (have 1 and 1)") || !strings.Contains(out, "too few runs") {
		t.Errorf("one run each: exit %d; want the too-few warning and too-few-runs deltas\n%s%s", code, out, errb)
	}
	code, out, _ = runMain(t, "compare", "--dir", root, a+","+c, b)
	if code != 0 || !strings.Contains(out, "2 runs ("+a+", "+c+")") {
		t.Errorf("comma list: exit %d\n%s", code, out)
	}
	if code, _, errb := runMain(t, "compare", "--dir", root, "nosuch", b); code != int(ExitUsage) || !strings.Contains(errb, `no run matches "nosuch"`) {
		t.Errorf("unknown run: exit %d %q; want 2", code, errb)
	}
	if code, _, errb := runMain(t, "compare", "--dir", root, a+",", b); code != int(ExitUsage) || !strings.Contains(errb, "empty item") {
		t.Errorf("stray comma: exit %d %q; want 2", code, errb)
	}
}

func TestCompareCmdRefusesDifferentURLs(t *testing.T) {
	root := t.TempDir()
	a := writeTestRun(t, root, "a", "http://127.0.0.1:8080/search", 0, 1, 100)
	b := writeTestRun(t, root, "b", "http://127.0.0.1:8080/render", 1, 2, 100)
	code, _, errb := runMain(t, "compare", "--dir", root, a, b)
	if code != int(ExitUsage) || !strings.Contains(errb, "different URLs") || !strings.Contains(errb, "--force") {
		t.Errorf("different URLs: exit %d %q; want 2 with a hint at --force", code, errb)
	}
	code, out, _ := runMain(t, "compare", "--dir", root, "--force", a, b)
	if code != 0 || !strings.Contains(out, "compared because of --force") {
		t.Errorf("--force: exit %d\n%s", code, out)
	}
}

func TestCompareCmdNewerSchema(t *testing.T) {
	root := t.TempDir()
	a := writeTestRun(t, root, "a", "", 0, 1, 100)
	b := writeTestRun(t, root, "b", "", 1, 1, 100)
	path := filepath.Join(root, b, runfmt.FileName)
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(raw), `"schema_version": `+strconv.Itoa(runfmt.SchemaVersion), `"schema_version": 99`, 1)), 0o644)
	code, _, errb := runMain(t, "compare", "--dir", root, a, b)
	if code == 0 || !strings.Contains(errb, "schema_version 99") || !strings.Contains(errb, "upgrade perflab") {
		t.Errorf("newer schema: exit %d %q; want an error asking to upgrade", code, errb)
	}
}
