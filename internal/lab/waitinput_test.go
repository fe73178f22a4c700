package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/profiling"
	"perflab/internal/runfmt"
)

// TestUnreadableTraceWarnsOnce: a trace that is cut off, not a trace, or
// of a Go version this build does not read gives one warning and no time
// per request: nothing is made of part of a trace.
func TestUnreadableTraceWarnsOnce(t *testing.T) {
	good, err := os.ReadFile("../walltime/testdata/sleep.trace")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "ends early"},
		{"foreign", []byte("\x1f\x8b\x08\x00 a gzipped profile"), "not a Go execution trace"},
		{"newer Go", append([]byte("go 1.31 trace\x00\x00\x00"), good[16:]...), "Go 1.31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := time.Now()
			s := &session{cfg: Config{Log: func(string) {}}, run: &runfmt.Run{Load: &runfmt.LoadResult{Requests: 100,
				Series: []runfmt.SeriesPoint{{T: 0, Requests: 50}, {T: 1, Requests: 50}}}}}
			s.prof = profiling.New(profileHost{s}, profiling.Config{})
			s.prof.SetWindow(from, from.Add(2*time.Second))
			s.analyseTrace(&profiling.Trace{Data: tc.data, From: from})
			if len(s.run.Warnings) != 1 || !strings.Contains(s.run.Warnings[0], tc.want) || !strings.Contains(s.run.Warnings[0], "no time split") {
				t.Errorf("warnings %q; want one naming %q and what is lost", s.run.Warnings, tc.want)
			}
			if s.run.Time != nil {
				t.Errorf("time per request %+v from an unreadable trace", s.run.Time)
			}
		})
	}
}

// TestPySpyIdleNotPermitted runs the Python test service with a py-spy
// that, for the idle recording only, runs as an unprivileged user, so the
// kernel refuses it: one warning, the CPU profile intact, no wait finding.
func TestPySpyIdleNotPermitted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Python service under load")
	}
	labtest.RequireRoot(t, "runs py-spy as another user")
	python := labtest.NeedTool(t, "python3", "")
	labtest.NeedTool(t, "setpriv", "")
	out, err := exec.Command(python, "-c", "import sysconfig; print(sysconfig.get_path('scripts'))").Output()
	if err != nil {
		t.Fatalf("%s: the scripts directory: %v", python, err)
	}
	real := labtest.NeedFile(t, "py-spy", filepath.Join(strings.TrimSpace(string(out)), "py-spy"), "")
	bin, err := os.MkdirTemp("", "perflab-pyspy-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(bin)
	os.Chmod(bin, 0o755)
	copyFile(t, real, filepath.Join(bin, "py-spy-real"))
	wrapper := "#!/bin/sh\ncase \" $* \" in *\" --idle \"*) exec setpriv --reuid=65534 --regid=65534 --clear-groups " +
		filepath.Join(bin, "py-spy-real") + " \"$@\";; esac\nexec " + filepath.Join(bin, "py-spy-real") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "py-spy"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	addr := labtest.FreeAddr(t)
	script, _ := filepath.Abs("../../testdata/services/pyslow/server.py")
	peer := strings.TrimSuffix(strings.TrimPrefix(startSlowPeer(t), "http://"), "/")
	cfg := acceptanceConfig(t, addr, "/quote", python, script, "--addr", addr, "--peer", peer)
	cfg.Profiler, cfg.Warmup, cfg.Load.Duration = ProfilerChoice(runfmt.ProfilerPySpy), 0, 2*time.Second
	r, _ := runAcceptance(t, cfg)
	var idle []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "py-spy --idle") {
			idle = append(idle, w)
		}
	}
	t.Logf("warnings: %q", r.Warnings)
	if len(idle) != 1 || !strings.Contains(idle[0], "not permitted") {
		t.Errorf("py-spy --idle warnings %q; want one saying it was not permitted", idle)
	}
	if r.Time != nil {
		t.Errorf("time per request %+v without idle stacks", r.Time)
	}
	cpu := false
	for _, p := range r.Profiles {
		cpu = cpu || p.Type == runfmt.ProfileCPU && p.Source == runfmt.SourceProfilers(runfmt.ProfilerPySpy)
	}
	if !cpu {
		t.Errorf("profiles %+v; want the CPU profile from py-spy, unaffected", r.Profiles)
	}
	wallKinds := map[runfmt.FindingKind]bool{"downstream-wait": true, "lock-contention": true, "pool-wait": true, "sync-wait": true,
		"sleep": true, "syscall-wait": true, "client-io": true, "gc-pause": true, "scheduler-latency": true}
	for _, f := range r.Findings {
		if wallKinds[f.Kind] {
			t.Errorf("[%s] %q from wall time that was not recorded", f.Kind, title(f))
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestRequestsIn(t *testing.T) {
	series := []runfmt.SeriesPoint{{T: 0, Requests: 100}, {T: 1, Requests: 200}, {T: 2, Requests: 300}}
	if n := requestsIn(series, 0.5, 2.5); n != 50+200+150 {
		t.Errorf("requestsIn(0.5 s, 2.5 s) = %d; want 400 (half of each end second)", n)
	}
}
