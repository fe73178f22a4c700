package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// TestPGOBadInput: --pgo that cannot be written, or a service whose
// profile go build -pgo cannot take, exits 2 naming it before any run.
func TestPGOBadInput(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	ok := filepath.Join(tmp, "default.pgo")
	missing := filepath.Join(tmp, "missing", "default.pgo")
	url := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--pgo", missing, url, "--", self}, "--pgo " + missing + ": write " + missing + ": its directory does not exist"},
		{[]string{"ab", "--pgo", missing, "--base", self, "--new", self, url}, missing},
		{[]string{"sweep", "--pgo", missing, "--env", "GOGC=1,2", url, "--", self}, missing},
		{[]string{"demo", "--pgo", missing}, missing},
		{[]string{"run", "--pgo", "/sys/default.pgo", url, "--", self}, "cannot write in /sys"},
		{[]string{"run", "--pgo", tmp, url, "--", self}, "not a regular file (a directory)"},
		{[]string{"run", "--pgo", ok, "--profiler", "perf", url, "--", self}, "--pgo " + ok + ": --profiler perf: its samples taken from outside the Go runtime carry no source lines and no function start lines"},
		{[]string{"run", "--pgo", ok, "--profiler", "none", url, "--", self}, "--profiler none takes no CPU profile"},
		{[]string{"run", "--pgo", ok, url, "--", "python3", "app.py"}, "python3 runs python, not Go"},
		{[]string{"ab", "--pgo", ok, "--pgo-side", "new", "--base", self, "--new", "node app.js", url}, "node runs node, not Go"},
		{[]string{"ab", "--pgo-side", "new", "--base", self, "--new", self, url}, "--pgo-side goes with --pgo FILE"},
		{[]string{"sweep", "--pgo", ok, "--pgo-value", "3", "--env", "GOGC=1,2", url, "--", self}, "--pgo-value 3: not a swept value (1 or 2)"},
		{[]string{"run", "--pgo", ok, "--find-max", url, "--", self}, "--pgo with --find-max"},
	} {
		dir := t.TempDir()
		code, _, stderr := perflab(t, append(tc.args, "--dir", dir)...)
		if code != int(ExitUsage) || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("perflab %s: exit %d, stderr %q; want exit 2 and one line saying %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
		if runs, _ := os.ReadDir(dir); len(runs) > 0 {
			t.Errorf("perflab %s: a run started (%s in --dir) though its input was refused", strings.Join(tc.args, " "), runs[0].Name())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, ".perflab-pgo-test-*")); len(left) > 0 {
		t.Errorf("probe files left behind: %v", left)
	}
}

// TestABPGO: ab --pgo writes the base side's CPU profiles merged (their
// samples add up), and says so. On a busy machine a run's profile can
// fail (its pprof endpoint starved past its bound): that run says why,
// and --pgo merges the others and names the run it left out.
func TestABPGO(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 real runs (~20 s)")
	}
	labtest.RequireRoot(t, "ab runs the service under a --cpus budget (cgroups)")
	bin := labtest.BuildService(t, "tolower")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	dir := t.TempDir()
	pgo := filepath.Join(t.TempDir(), "default.pgo")
	svc := bin + " -addr " + api + " -pprof-addr " + pp
	env, _, errb := testEnv()
	code := Main(context.Background(), []string{"ab", "--json", "--dir", dir, "--runs", "2", "--pgo", pgo,
		"-d", "2s", "--warmup", "0", "--cpus", "1", "-c", "4", "--pprof", "http://" + pp,
		"--name", "tolower", "--base", svc + " -mode=buggy", "--new", svc + " -mode=fixed",
		"http://" + api + "/search?q=oak"}, env)
	if code != 0 {
		t.Fatalf("perflab ab exited %d\nstderr:\n%s", code, errb)
	}
	base, newSide := sideSamples(t, dir, "tolower-base"), sideSamples(t, dir, "tolower-new")
	if len(base.profiled) == 0 {
		t.Fatalf("no base run has a CPU profile: %q", base.without)
	}
	got := cpuSamples(t, pgo)
	if got != base.samples {
		t.Errorf("%s holds %d CPU samples; want the base side's runs' %d added up (the new side's: %d)", pgo, got, base.samples, newSide.samples)
	}
	from := "from 2 runs of the base side"
	if len(base.profiled) == 1 {
		from = "from 1 run of the base side"
	}
	if !strings.Contains(errb.String(), "wrote "+pgo+": ") || !strings.Contains(errb.String(), from) {
		t.Errorf("stderr does not say what --pgo wrote (%s):\n%s", from, errb)
	}
	for id, why := range base.without {
		t.Logf("base run %s has no CPU profile: %q", id, why)
		if len(why) == 0 || !strings.Contains(errb.String(), "--pgo: left out run "+id) {
			t.Errorf("base run %s has no CPU profile and says why %q; want a reason, and stderr to name it as left out:\n%s", id, why, errb)
		}
	}
}

// TestRunPGONotGo: a Python service behind a shell wrapper passes the
// checks before the run; its run is measured and printed in full, then
// --pgo exits 2 naming why, and writes nothing.
func TestRunPGONotGo(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of a Python service (~10 s)")
	}
	labtest.RequireRoot(t, "the run confines the service to a CPU budget (cgroups)")
	labtest.NeedTool(t, "python3", "")
	labtest.NeedTool(t, "py-spy", "")
	server, err := filepath.Abs("../../testdata/services/pyhot/server.py")
	if err != nil {
		t.Fatal(err)
	}
	api := labtest.FreeAddr(t)
	pgo := filepath.Join(t.TempDir(), "default.pgo")
	env, out, errb := testEnv()
	code := Main(context.Background(), []string{"run", "--quiet", "--dir", t.TempDir(), "--pgo", pgo,
		"-d", "2s", "--warmup", "1s", "--cpus", "1", "-c", "2", "http://" + api + "/checksum",
		"--", "sh", "-c", "exec python3 " + server + " --addr " + api}, env)
	if code != int(ExitUsage) || !strings.Contains(errb.String(), "runs python, not Go") {
		t.Errorf("run --pgo of a Python service: exit %d, stderr:\n%s\nwant exit 2 saying it runs python, not Go", code, errb)
	}
	if !strings.Contains(out.String(), "hot_checksum") {
		t.Errorf("the run's verdict was not printed in full:\n%s", out)
	}
	if _, err := os.Stat(pgo); err == nil {
		t.Errorf("%s was written for a Python service", pgo)
	}
}

// sideRuns are the runs of one side of an ab: the samples of their CPU
// profiles added up, the runs with one, and the runs without one with
// the reasons each gave.
type sideRuns struct {
	samples  int64
	profiled []string
	without  map[string][]string
}

// sideSamples reads the two runs named name in dir.
func sideSamples(t *testing.T, dir, name string) sideRuns {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	side := sideRuns{without: map[string][]string{}}
	for _, e := range entries {
		r, err := runfmt.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || r.Name != name {
			continue
		}
		ref, ok := r.SavedProfile(runfmt.ProfileCPU)
		if !ok {
			side.without[r.ID] = []string{report.DegradedText(r)}
			continue
		}
		side.samples += cpuSamples(t, filepath.Join(dir, e.Name(), ref.File))
		side.profiled = append(side.profiled, r.ID)
	}
	if n := len(side.profiled) + len(side.without); n != 2 {
		t.Fatalf("%d runs named %s in %s; want 2", n, name, dir)
	}
	return side
}

// cpuSamples is the samples/count total of a CPU profile.
func cpuSamples(t *testing.T, path string) int64 {
	t.Helper()
	p, err := stacks.ReadProfileFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for i, st := range p.SampleType {
		if st.Type == "samples" && st.Unit == "count" {
			for _, s := range p.Sample {
				n += s.Value[i]
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no CPU samples", path)
	}
	return n
}
