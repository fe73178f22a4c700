package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

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
