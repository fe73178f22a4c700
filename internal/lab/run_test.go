package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"

	"perflab/internal/runfmt"
)

func TestRunComplete(t *testing.T) {
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Warmup = 300 * time.Millisecond
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusComplete || r.Load == nil || r.Load.Requests == 0 || r.Target == nil {
		t.Fatalf("status %s, load %v, target %v", r.Status, r.Load, r.Target)
	}
	if r.Target.CPUSeconds <= 0 || r.Target.CPUMsPerRequest <= 0 || r.Target.RSSMaxBytes <= 0 {
		t.Errorf("target summary not measured: %+v", r.Target)
	}
	withCPU := 0
	for _, p := range r.Load.Series {
		if p.CPUCores != nil {
			withCPU++
		}
	}
	if withCPU == 0 {
		t.Errorf("series has no target samples: %+v", r.Load.Series)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "target.log")); err != nil {
		t.Errorf("target.log: %v", err)
	}
	if r.Env.HostCores == 0 || r.Env.Kernel == "" || r.SchemaVersion != runfmt.SchemaVersion {
		t.Errorf("environment not recorded: %+v", r.Env)
	}
	noLeftovers(t, cfg.Name, addr)
}

func TestRunFaultsWritePartialRuns(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(c *Config)
		reason string
	}{
		{"command not found", func(c *Config) { c.Command = []string{"/nonexistent/perflab-service"} }, "perflab-service"},
		{"exits at once", func(c *Config) { c.Command = []string{"sh", "-c", "echo boom-at-start; exit 3"} }, "boom-at-start"},
		{"never ready", func(c *Config) {
			c.Command = []string{"sleep", "30"}
			c.ReadyTimeout = time.Second
		}, "not ready"},
		{"crashes mid-run", func(c *Config) {
			c.Env = append(c.Env, "PERFLAB_TEST_EXIT_AFTER=1500ms")
			c.Load.Duration = 5 * time.Second
		}, "exited during the measured window"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := labtest.FreeAddr(t)
			cfg := testConfig(t, addr)
			tc.mutate(&cfg)
			start := time.Now()
			res, err := Run(context.Background(), cfg)
			if err == nil {
				t.Fatal("want an error")
			}
			r := readRun(t, res)
			if r.Status != runfmt.StatusPartial || !strings.Contains(r.PartialReason, tc.reason) {
				t.Errorf("status %q reason %q; want partial with %q", r.Status, r.PartialReason, tc.reason)
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %v", el)
			}
			if tc.name == "crashes mid-run" {
				if r.Load == nil || r.Load.Requests == 0 || r.Target == nil || r.Target.CPUSeconds <= 0 {
					t.Errorf("what was measured before the crash is lost: load %+v target %+v", r.Load, r.Target)
				}
				if r.Target != nil && (r.Target.ExitCode == nil || *r.Target.ExitCode != 2) {
					t.Errorf("exit code %v; want 2", r.Target.ExitCode)
				}
			}
			noLeftovers(t, cfg.Name, addr)
		})
	}
}

func TestRunStopsAServiceThatIgnoresSIGTERMAndItsChildren(t *testing.T) {
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr, "PERFLAB_TEST_IGNORE_TERM=1")
	marker := "perflab-child-" + strings.ReplaceAll(addr, ":", "-")
	exe := cfg.Command[0]
	// bash: dash (Debian's sh) has no exec -a, and the children would not
	// exist for the test to check.
	cfg.Command = []string{"bash", "-c", "(exec -a " + marker + " sleep 60) & (exec -a " + marker + " sleep 61) & exec " + exe}
	children := 0
	cfg.Log = func(msg string) {
		if strings.HasPrefix(msg, "measuring") {
			children = countProcs(marker)
		}
	}
	res, err := Run(context.Background(), cfg)
	if children != 2 {
		t.Fatalf("%d children named %s ran during the window; want 2", children, marker)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusComplete {
		t.Errorf("status %s (%s)", r.Status, r.PartialReason)
	}
	if r.Target.ExitCode == nil || *r.Target.ExitCode != 137 {
		t.Errorf("exit code %v; want 137 (SIGKILL after the grace period)", r.Target.ExitCode)
	}
	noLeftovers(t, cfg.Name, marker)
	noLeftovers(t, cfg.Name, addr)
}

func TestRunInterrupted(t *testing.T) {
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Load.Duration = 20 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Log = func(msg string) {
		if strings.HasPrefix(msg, "measuring") {
			time.AfterFunc(700*time.Millisecond, cancel)
		}
	}
	start := time.Now()
	res, err := Run(ctx, cfg)
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v; want an interrupted run, quickly", err, time.Since(start))
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusPartial || !strings.Contains(r.PartialReason, "interrupted") {
		t.Errorf("status %s reason %q", r.Status, r.PartialReason)
	}
	if r.Load == nil || !r.Load.Interrupted || r.Load.Requests == 0 || r.Target == nil {
		t.Errorf("what completed before Ctrl-C is lost: %+v", r.Load)
	}
	noLeftovers(t, cfg.Name, addr)
}

func TestRunAttach(t *testing.T) {
	addr := labtest.FreeAddr(t)
	exe, _ := os.Executable()
	svc := exec.Command(exe)
	svc.Env = append(os.Environ(), "PERFLAB_TEST_SERVICE="+addr)
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	defer svc.Process.Kill()
	exited := make(chan struct{})
	go func() { svc.Wait(); close(exited) }()
	cfg := testConfig(t, addr)
	cfg.Command, cfg.PID = nil, svc.Process.Pid
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if r.Target == nil || r.Target.CPUSeconds <= 0 || r.Load.Requests == 0 {
		t.Fatalf("attached run not measured: %+v", r.Target)
	}
	select {
	case <-exited:
		t.Error("perflab stopped a service it did not start")
	default:
	}
	// The service exits during a second run, 0.7 s into its window:
	// partial. (The test ends it, not a timer started with it: on a busy
	// machine under -race the first run can outlast any such timer.)
	cfg.Load.Duration = 5 * time.Second
	cfg.Log = func(msg string) {
		if strings.HasPrefix(msg, "measuring") {
			time.AfterFunc(700*time.Millisecond, func() { _ = svc.Process.Kill() })
		}
	}
	res, err = Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("want an error when the attached service exits mid-run")
	}
	if r := readRun(t, res); r.Status != runfmt.StatusPartial {
		t.Errorf("status %s", r.Status)
	}
	cfg.PID = 1 << 22
	if res, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("attach to a missing pid: %v", err)
	} else if r := readRun(t, res); r.Status != runfmt.StatusPartial {
		t.Errorf("status %s", r.Status)
	}
}

// TestInterruptedRunKeepsItsCPUProfile: Ctrl-C into a Go service's window,
// once the CPU profile's first chunk (five seconds) is recorded, keeps that
// chunk, and the run's figures read from it.
func TestInterruptedRunKeepsItsCPUProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: a run of nine seconds and its stop")
	}
	cfg := goService(t, "tolower", "/search?q=oak")
	cfg.Load.Duration = 30 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Log = func(msg string) {
		if strings.HasPrefix(msg, "CPU profile: 5 of 30 s recorded") {
			cancel()
		}
	}
	res, err := Run(ctx, cfg)
	if err == nil {
		t.Fatal("want an interrupted run (no chunk of the CPU profile was logged as recorded)")
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusPartial {
		t.Errorf("status %s (%s); want partial", r.Status, r.PartialReason)
	}
	p := runProfile(t, r, res.Dir)
	if d := time.Duration(p.DurationNanos); d < 4*time.Second || len(p.Sample) == 0 {
		t.Errorf("the CPU profile kept covers %v with %d samples; want its first 5 s chunk", d, len(p.Sample))
	}
	if len(r.Hot) == 0 {
		t.Error("no hot functions read from the CPU profile kept")
	}
}
