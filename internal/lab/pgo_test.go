package lab

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/stacks"
)

// TestWritePGO runs a Go test service three times, twice profiled through
// its net/http/pprof and once by perf, then: the two pprof profiles merge
// into one whose samples add up and that go build -pgo builds the service
// with; perf's profile is refused, for the reason go refuses it too; and
// a mix keeps the runs go takes and says which it left out.
func TestWritePGO(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of a service, then a go build -pgo of it (a minute)")
	}
	labtest.RequireRoot(t, "the runs confine the service to a CPU budget (cgroups)")
	var runs []*Result
	var want int64
	for range 2 {
		res := pgoRun(t, runfmt.ProfilerPprof)
		runs = append(runs, res)
		want += samplesOf(t, res)
	}
	dir := t.TempDir()
	t.Run("merged", func(t *testing.T) {
		path := filepath.Join(dir, "default.pgo")
		pg, err := WritePGO(path, runs)
		if err != nil {
			t.Fatal(err)
		}
		got := profileSamples(t, path)
		one := samplesOf(t, runs[0])
		if got != want || pg.Samples != want || len(pg.Runs) != 2 || got <= one {
			t.Errorf("merged profile: %d samples (WritePGO says %d from runs %v); want the runs' %d added up, more than the first run's %d",
				got, pg.Samples, pg.Runs, want, one)
		}
		bin := filepath.Join(dir, "tolower")
		out, err := exec.Command("go", "build", "-pgo="+path, "-o", bin, "perflab/testdata/services/tolower").CombinedOutput()
		if err != nil {
			t.Fatalf("go build -pgo=%s: %v\n%s", path, err, out)
		}
		info, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
		if err != nil || !strings.Contains(string(info), "-pgo="+path) {
			t.Errorf("go version -m: the build does not record -pgo=%s (%v):\n%s", path, err, info)
		}
	})
	labtest.NeedTool(t, "perf", "")
	perfRun := pgoRun(t, runfmt.ProfilerPerf)
	t.Run("perf refused", func(t *testing.T) {
		path := filepath.Join(dir, "perf.pgo")
		_, err := WritePGO(path, []*Result{perfRun})
		if !errors.Is(err, ErrPGOInput) || !strings.Contains(err.Error(), string(runfmt.ProfilerPerf)) || !strings.Contains(err.Error(), "--pprof") {
			t.Errorf("WritePGO of a perf profile: %v; want ErrPGOInput naming perf and --pprof", err)
		}
		if _, serr := os.Stat(path); serr == nil {
			t.Errorf("%s was written for a refused profile", path)
		}
		// go refuses it as well: if it took it one day, perflab should too.
		cpu := filepath.Join(perfRun.Dir, "profiles", string(runfmt.ProfileCPU)+".pb.gz")
		out, err := exec.Command("go", "tool", "preprofile", "-i", cpu, "-o", filepath.Join(dir, "perf.pre")).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "start_line") {
			t.Errorf("go tool preprofile of perf's profile: %v\n%s\nwant it refused for want of function start lines", err, out)
		}
	})
	t.Run("mixed", func(t *testing.T) {
		pg, err := WritePGO(filepath.Join(dir, "mixed.pgo"), []*Result{perfRun, runs[0]})
		if err != nil || len(pg.Runs) != 1 || pg.Runs[0] != runs[0].Run.ID || len(pg.Skipped) != 1 ||
			!strings.Contains(pg.Skipped[0], perfRun.Run.ID) || pg.Samples != samplesOf(t, runs[0]) {
			t.Errorf("WritePGO of a perf and a pprof run = %+v, %v; want the pprof run alone, the perf one left out", pg, err)
		}
	})
}

// pgoRun is a short run of the tolower service profiled by profiler.
func pgoRun(t *testing.T, profiler runfmt.Profiler) *Result {
	t.Helper()
	cfg := goService(t, "tolower", "/search?q=oak")
	cfg.Load.Duration, cfg.Profiler, cfg.NoTrace = 2*time.Second, ProfilerChoice(profiler), true
	if profiler != runfmt.ProfilerPprof {
		cfg.Pprof = ""
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run with %s: %v", profiler, err)
	}
	return res
}

// samplesOf is the samples/count total of a run's CPU profile.
func samplesOf(t *testing.T, res *Result) int64 {
	t.Helper()
	ref, ok := res.Run.SavedProfile(runfmt.ProfileCPU)
	if !ok {
		t.Fatalf("run %s saved no CPU profile: %s", res.Run.ID, report.DegradedText(res.Run))
	}
	return profileSamples(t, filepath.Join(res.Dir, ref.File))
}

func profileSamples(t *testing.T, path string) int64 {
	t.Helper()
	p, err := stacks.ReadProfileFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for i, st := range p.SampleType {
		if st.Type == runfmt.SampleCount && st.Unit == runfmt.SampleCountUnit {
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

func TestCheckPGO(t *testing.T) {
	script := filepath.Join(t.TempDir(), "serve")
	if err := os.WriteFile(script, []byte("#!/usr/bin/env -S PYTHONUNBUFFERED=1 python3 -u\nprint('hi')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" accepted
	}{
		{"go binary", Config{Command: []string{self}}, ""},
		{"go pid", Config{PID: os.Getpid()}, ""},
		{"wrapper", Config{Command: []string{"sh", "-c", self}}, ""},
		{"not found", Config{Command: []string{"./no-such-server"}}, ""},
		{"auto", Config{Profiler: ProfilerAuto, Command: []string{self}}, ""},
		{"pprof", Config{Profiler: ProfilerChoice(runfmt.ProfilerPprof), Command: []string{self}}, ""},
		{"perf", Config{Profiler: ProfilerChoice(runfmt.ProfilerPerf), Command: []string{self}}, "--profiler perf: its samples taken from outside the Go runtime"},
		{"py-spy", Config{Profiler: ProfilerChoice(runfmt.ProfilerPySpy), Command: []string{self}}, "--profiler py-spy"},
		{"none", Config{Profiler: ProfilerNone, Command: []string{self}}, "--profiler none takes no CPU profile"},
		{"python", Config{Command: []string{"python3", "app.py"}}, "python3 runs python, not Go"},
		{"java", Config{Command: []string{"/usr/bin/java", "Server.java"}}, "/usr/bin/java runs jvm, not Go"},
		{"script", Config{Command: []string{script}}, script + " runs python, not Go"},
		{"script in dir", Config{Command: []string{"./serve"}, Dir: filepath.Dir(script)}, "./serve runs python, not Go"},
	} {
		err := CheckPGO(tc.cfg)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: CheckPGO = %v; want accepted", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrPGOInput) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: CheckPGO = %v; want ErrPGOInput saying %q", tc.name, err, tc.want)
		}
	}
}

func TestCheckPGOPythonPID(t *testing.T) {
	py := labtest.NeedTool(t, "python3", "")
	cmd := exec.Command(py, "-c", "import time; time.sleep(30)")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// python3 may be a shim (pyenv) that starts the interpreter in the same
	// process: wait until it does.
	labtest.Until(10*time.Second, func() bool {
		info, err := service.DetectRuntime(cmd.Process.Pid)
		return err == nil && info.Runtime == runfmt.RuntimePython
	})
	err := CheckPGO(Config{PID: cmd.Process.Pid})
	if !errors.Is(err, ErrPGOInput) || !strings.Contains(err.Error(), "runs python") {
		t.Errorf("CheckPGO(pid of python3) = %v; want it refused as python", err)
	}
}

func TestCheckPGOOutput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "default.pgo"), ""},
		{filepath.Join(dir, "missing", "default.pgo"), "its directory does not exist"},
		{dir, "not a regular file"},
		{"/sys/default.pgo", "cannot write in /sys"}, // sysfs takes no new file, even from root
	} {
		err := CheckPGOOutput(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckPGOOutput(%s) = %v; want accepted", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckPGOOutput(%s) = %v; want an error saying %q", tc.path, err, tc.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".perflab-pgo-test-*")); len(left) > 0 {
		t.Errorf("probe files left behind: %v", left)
	}
}
