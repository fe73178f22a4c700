package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// burnForProfile is a function a CPU profile of this test names.
func burnForProfile(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := range 10000 {
			n += i * i % 7
		}
	}
	return n
}

func cpuProfileFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Skipf("CPU profiling unavailable: %v", err)
	}
	if burnForProfile(300*time.Millisecond) < 0 {
		t.Log("unreachable: keeps the burn")
	}
	pprof.StopCPUProfile()
	f.Close()
	return path
}

// TestTopAndListJSON: top --json and list --json print their tables as
// records that name the profile's hot function.
func TestTopAndListJSON(t *testing.T) {
	prof := cpuProfileFile(t)
	code, out, errb := runMain(t, "top", "--json", "-n", "5", prof)
	var top analysis.TopRecord
	if code != 0 || json.Unmarshal([]byte(out), &top) != nil {
		t.Fatalf("top --json: exit %d %s\n%s", code, errb, out)
	}
	found := false
	for _, r := range top.Rows {
		found = found || strings.Contains(r.Function, "burnForProfile")
	}
	if top.SampleType != "cpu" || top.Total <= 0 || len(top.Rows) == 0 || len(top.Rows) > 5 || !found {
		t.Errorf("top --json = %+v; want up to 5 cpu rows naming burnForProfile", top)
	}
	code, out, errb = runMain(t, "list", "--json", "burnForProfile", prof)
	var l analysis.ListRecord
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("list --json: exit %d %s\n%s", code, errb, out)
	}
	if len(l.Functions) != 1 || !strings.Contains(l.Functions[0].Function, "burnForProfile") || len(l.Functions[0].Lines) == 0 || l.Functions[0].Cum <= 0 {
		t.Errorf("list --json = %+v; want burnForProfile with its lines", l)
	}
}

// TestRunsJSONAndPrune: runs --json lists every run; --prune-keep keeps
// the newest N of each name, --dry-run removes nothing.
func TestRunsJSONAndPrune(t *testing.T) {
	root := twoBuilds(t) // 5 runs named old, 5 named new
	code, out, errb := runMain(t, "runs", "--json", "--dir", root)
	var ls []runfmt.RunListing
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || len(ls) != 10 {
		t.Fatalf("runs --json: exit %d %s: %d runs\n%s", code, errb, len(ls), out)
	}
	if ls[0].Name != "new" || ls[0].RPS <= 0 || ls[0].CPUMsPerRequest <= 0 || ls[0].Dir == "" {
		t.Errorf("newest listing %+v; want run new with its figures", ls[0])
	}
	if code, out, _ := runMain(t, "runs", "--dir", root, "--prune-keep", "2", "--dry-run"); code != 0 || strings.Count(out, "would remove") != 6 {
		t.Errorf("--dry-run: exit %d\n%s; want 6 runs named", code, out)
	}
	code, out, errb = runMain(t, "runs", "--dir", root, "--prune-keep", "2")
	if code != 0 || strings.Count(out, "removed") != 6 {
		t.Fatalf("--prune-keep 2: exit %d %s\n%s", code, errb, out)
	}
	_, out, _ = runMain(t, "runs", "--json", "--dir", root)
	ls = nil
	_ = json.Unmarshal([]byte(out), &ls)
	names := map[string]int{}
	for _, l := range ls {
		names[l.Name]++
	}
	if names["old"] != 2 || names["new"] != 2 {
		t.Errorf("after --prune-keep 2: %v; want 2 of each name", names)
	}
	for _, bad := range [][]string{{"runs", "--prune-keep", "-1"}, {"runs", "--dry-run"}} {
		if code, _, _ := runMain(t, append(bad, "--dir", root)...); code != int(ExitUsage) {
			t.Errorf("%q: exit %d; want 2", bad, code)
		}
	}
}

// TestCompareBaseline: --baseline NAME compares NEW with NAME's newest
// --last runs, from another directory if asked.
func TestCompareBaseline(t *testing.T) {
	root := twoBuilds(t)
	code, out, errb := runMain(t, "compare", "--json", "--dir", root, "--baseline", "old", "--last", "4", "new")
	var c runfmt.Comparison
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("compare --baseline: exit %d %s\n%s", code, errb, out)
	}
	if len(c.Base.Runs) != 4 || len(c.New.Runs) != 5 || c.Base.Label != "old (last 4)" || c.Verdict == nil {
		t.Errorf("baseline %q (%d runs) vs %q (%d runs); want the last 4 of old against 5 new", c.Base.Label, len(c.Base.Runs), c.New.Label, len(c.New.Runs))
	}
	// The newest four of "old": not the oldest, written at 05:06:00.
	for _, id := range c.Base.Runs {
		if strings.HasSuffix(id, "-050600-old") {
			t.Errorf("baseline holds the oldest run %s", id)
		}
	}
	other := t.TempDir()
	if code, _, errb := runMain(t, "compare", "--dir", other, "--baseline-dir", root, "--baseline", "old", filepath.Join(root, c.New.Runs[0])); code != 0 {
		t.Errorf("--baseline-dir: exit %d %s", code, errb)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--dir", root, "--baseline", "nobody", "new"}, "no run of that name"},
		{[]string{"compare", "--dir", root, "--baseline", "old", "old", "new"}, "give NEW only"},
		{[]string{"compare", "--dir", root, "--last", "3", "old", "new"}, "--last goes with --baseline"},
		{[]string{"compare", "--dir", root, "new"}, "BASE and NEW"},
	} {
		if code, _, errb := runMain(t, tc.args...); code != int(ExitUsage) || !strings.Contains(errb, tc.want) {
			t.Errorf("%q: exit %d %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
}

// TestCompareOutputs: --format markdown on stdout, --md and --junit files,
// and the flags' bad input.
func TestCompareOutputs(t *testing.T) {
	root := twoBuilds(t)
	dir := t.TempDir()
	md, junit := filepath.Join(dir, "summary.md"), filepath.Join(dir, "junit.xml")
	code, out, errb := runMain(t, "compare", "--dir", root, "--format", "markdown", "--md", md, "--junit", junit, "--fail-on", "cpu_per_request<-10%", "old", "new")
	if code != int(ExitRegression) {
		t.Fatalf("exit %d; want 1 (cpu_per_request fell beyond -10%%)\n%s", code, errb)
	}
	if !strings.HasPrefix(out, "### ❌ **Regression**") {
		t.Errorf("stdout is not the markdown summary:\n%s", out)
	}
	if b, err := os.ReadFile(md); err != nil || string(b) != out {
		t.Errorf("--md file differs from stdout's markdown (%v)", err)
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `failures="1"`) {
		t.Errorf("--junit: %v\n%s", err, b)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "html"}, "--format html: perflab compare writes text, json, markdown or junit"},
		{[]string{"--json", "--format", "markdown"}, "give one"},
		{[]string{"--md", filepath.Join(dir, "missing", "x.md")}, "its directory does not exist"},
		{[]string{"--junit", dir}, "not a regular file"},
	} {
		args := append(append([]string{"compare", "--dir", root}, tc.args...), "old", "new")
		if code, _, errb := runMain(t, args...); code != int(ExitUsage) || !strings.Contains(errb, tc.want) {
			t.Errorf("%q: exit %d %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
}

// TestFlameExports: collapsed stacks read back (with perflab's own
// collapsed parser) to the profile's total, and speedscope JSON's weights
// add up to it with every frame index in range.
func TestFlameExports(t *testing.T) {
	prof := cpuProfileFile(t)
	_, out, _ := runMain(t, "top", "--json", prof)
	var top analysis.TopRecord
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatal(err)
	}
	code, folded, errb := runMain(t, "flame", "--format", "collapsed", prof)
	if code != 0 || !strings.Contains(folded, "burnForProfile") {
		t.Fatalf("flame --format collapsed: exit %d %s\n%s", code, errb, folded)
	}
	p, err := capture.ParseCollapsed(strings.NewReader(folded), 1)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, s := range p.Sample {
		sum += s.Value[1]
	}
	if sum != top.Total {
		t.Errorf("collapsed stacks add up to %d; the profile's total is %d", sum, top.Total)
	}
	path := filepath.Join(t.TempDir(), "cpu.speedscope.json")
	if code, _, errb := runMain(t, "flame", "--format", "speedscope", "-o", path, prof); code != 0 {
		t.Fatalf("flame --format speedscope: exit %d %s", code, errb)
	}
	var ss struct {
		Schema string `json:"$schema"`
		Shared struct {
			Frames []struct{ Name string } `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Type     string    `json:"type"`
			Unit     string    `json:"unit"`
			EndValue int64     `json:"endValue"`
			Samples  [][]int32 `json:"samples"`
			Weights  []int64   `json:"weights"`
		} `json:"profiles"`
	}
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &ss); err != nil || len(ss.Profiles) != 1 {
		t.Fatalf("speedscope file: %v\n%.500s", err, raw)
	}
	sp := ss.Profiles[0]
	var wsum int64
	for i, s := range sp.Samples {
		wsum += sp.Weights[i]
		for _, f := range s {
			if f < 0 || int(f) >= len(ss.Shared.Frames) {
				t.Fatalf("sample %d refers to frame %d of %d", i, f, len(ss.Shared.Frames))
			}
		}
	}
	if ss.Schema == "" || sp.Type != "sampled" || sp.Unit != "nanoseconds" || len(sp.Samples) != len(sp.Weights) || wsum != top.Total || sp.EndValue != wsum {
		t.Errorf("speedscope: type %q unit %q, %d samples, weights %d, end %d; want sampled nanoseconds adding up to %d", sp.Type, sp.Unit, len(sp.Samples), wsum, sp.EndValue, top.Total)
	}
	if code, _, _ := runMain(t, "flame", "--format", "svg", prof); code != int(ExitUsage) {
		t.Errorf("--format svg: exit %d; want 2", code)
	}
}

// TestPruneSkipsRefusedRuns: a run directory holding a user's file is
// left as it is with a warning, and the older runs are pruned still.
func TestPruneSkipsRefusedRuns(t *testing.T) {
	root := twoBuilds(t) // 5 runs named old, 5 named new
	code, out, _ := runMain(t, "runs", "--json", "--dir", root)
	var ls []runfmt.RunListing
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil {
		t.Fatalf("runs --json: exit %d\n%s", code, out)
	}
	var firstOut string // the newest run --prune-keep 2 removes
	seen := map[string]int{}
	for _, l := range ls {
		if seen[l.Name]++; seen[l.Name] == 3 && firstOut == "" {
			firstOut = l.Dir
		}
	}
	notes := filepath.Join(firstOut, "mine", "notes.txt")
	if err := os.Mkdir(filepath.Dir(notes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runMain(t, "runs", "--dir", root, "--prune-keep", "2")
	if code != 0 || strings.Count(out, "removed") != 5 || !strings.Contains(errb, "warning: not removing "+firstOut) || !strings.Contains(errb, "1 left as they are") {
		t.Errorf("--prune-keep 2 with a user's file in %s: exit %d\n%s%s; want 5 removed, that one left with a warning, exit 0", firstOut, code, out, errb)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("the user's file: %v", err)
	}
}
