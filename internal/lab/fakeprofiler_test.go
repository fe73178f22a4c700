package lab

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// fakeProfiler is a profiler of the test's own, added to a run from this
// file alone: its descriptor, its Recorder, and a registry made with it.
// It serves Go processes, says when it samples, and writes the CPU a
// process used over the window (read from /proc) as collapsed stacks of
// one stack, read back with capture's collapsed-stacks reader.
var fakeProfiler = profiling.Profiler{
	Name:     "fake",
	Install:  "nothing to install: it is the lab tests' own",
	Runtimes: []runfmt.Runtime{runfmt.RuntimeGo},
	Gives:    profiling.Gives{Lines: true},
	Sampling: profiling.Sampling{SignalsReady: true},
	Hz:       100,
	Recorder: fakeRecorder{},
}

// fakeHot is the function the fake charges the process's CPU to: one of
// the service's own (the test binary is the service), so the run names it
// as user code.
const fakeHot = "perflab/internal/lab.fakeProfilerHot"

// fakeRecorder is what the fake profiler does.
type fakeRecorder struct{}

var _ profiling.Recorder = fakeRecorder{}

// Record reads the CPU job's process used over the window and gives it,
// in samples of 1/Hz, to fakeHot under the test service's handler.
func (fakeRecorder) Record(ctx context.Context, job profiling.Job) (*profile.Profile, time.Duration, error) {
	pid := job.Processes[0].PID
	before, err := service.ProcessCPUSeconds(pid)
	if err != nil {
		return nil, 0, fmt.Errorf("fake of pid %d: %w", pid, err)
	}
	job.WaitWindow(ctx)
	after, err := service.ProcessCPUSeconds(pid)
	if err != nil {
		return nil, 0, fmt.Errorf("fake of pid %d: %w", pid, err)
	}
	period := time.Second / time.Duration(max(job.Hz, 1))
	samples := int64((after - before) * float64(time.Second) / float64(period))
	_, file, line, _ := runtime.Caller(0)
	stacks := fmt.Sprintf("perflab/internal/lab.serveTestService;%s (%s:%d) %d\n", fakeHot, file, line, samples)
	p, err := capture.ParseCollapsed(strings.NewReader(stacks), period.Nanoseconds())
	return p, 0, err
}

// TestRunWithARegisteredProfiler: a run given a registry with the fake
// profiler and --profiler fake samples the service with it end to end:
// the run lists the service's process as the fake's, its CPU profile is
// the fake's, its hottest user function the fake's, and run.json reads
// back with the fake's name.
func TestRunWithARegisteredProfiler(t *testing.T) {
	reg, err := profiling.Default().With(&fakeProfiler)
	if err != nil {
		t.Fatal(err)
	}
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Profilers, cfg.Profiler = reg, ProfilerChoice(fakeProfiler.Name)
	cfg.Warmup, cfg.Load.Duration = 300*time.Millisecond, 2*time.Second
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusComplete {
		t.Errorf("status %s (%s); want complete", r.Status, r.PartialReason)
	}
	i := slices.IndexFunc(r.Profiles, func(p runfmt.ProfileRef) bool { return p.Type == runfmt.ProfileCPU })
	if i < 0 || r.Profiles[i].Source != runfmt.SourceProfilers(fakeProfiler.Name) || r.Profiles[i].Samples == 0 {
		t.Fatalf("profiles %+v (warnings %q); want a CPU profile with samples, recorded by fake", r.Profiles, r.Warnings)
	}
	if r.Profiling == nil || !slices.ContainsFunc(r.Profiling.Processes, func(p runfmt.ProcessProfile) bool { return p.Profiler == fakeProfiler.Name && p.Samples > 0 }) {
		t.Errorf("profiling %+v; want the service's process sampled by fake", r.Profiling)
	}
	if first, _ := firstUserFunc(r); first != fakeHot {
		t.Errorf("first user function %q; want %s (hot %+v)", first, fakeHot, r.Hot)
	}
	named := slices.ContainsFunc(r.Findings, func(f runfmt.Finding) bool {
		return slices.ContainsFunc(f.Evidence.Functions, func(e runfmt.FuncEvidence) bool { return e.Function == fakeHot })
	})
	if !named {
		t.Errorf("no finding names %s: %+v", fakeHot, r.Findings)
	}
	noLeftovers(t, cfg.Name, addr)
}

// TestRunRefusesAnUnregisteredProfiler: --profiler names a profiler the
// run's registry does not have: the run says so, naming the ones it has.
func TestRunRefusesAnUnregisteredProfiler(t *testing.T) {
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Profiler, cfg.Warmup = ProfilerChoice(fakeProfiler.Name), 0
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "--profiler fake") || !strings.Contains(err.Error(), string(runfmt.ProfilerPerf)) {
		t.Errorf("a run with --profiler fake and perflab's own profilers: %v; want an error naming fake and the profilers", err)
	}
	noLeftovers(t, cfg.Name, addr)
}
