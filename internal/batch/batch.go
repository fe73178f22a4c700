package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/ktrace"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
)

// DefaultTimeout bounds a batch program's run when Config.Timeout
// is 0.
const DefaultTimeout = 10 * time.Minute

// Config describes one run of a batch program: the command of
// session.Config (its environment, directory, budget, profiler and store)
// run once, measured from its start to its exit. Its load, warm-up,
// readiness and pprof settings do not apply.
type Config struct {
	session.Config
	// Timeout bounds the program's run: past it, it is stopped (SIGTERM,
	// then SIGKILL after Config.StopGrace) and the run is partial.
	Timeout time.Duration
}

// ExitError is a batch program that ended otherwise than by exiting
// 0: with a status, killed, or stopped at --timeout. The run is written
// (partial), with what was measured until then.
type ExitError struct {
	// Status is "exit status 2" or "killed by signal 9 (killed)".
	Status string
	// Timeout is the --timeout that stopped it (0: it ended by itself);
	// AtOnce says it exited within runfmt.BatchAtOnceS of its start.
	Timeout time.Duration
	AtOnce  bool
	// LastLines are the program's last lines of output.
	LastLines []string
}

func (e *ExitError) Error() string {
	killed := strings.HasPrefix(e.Status, "killed by ") // a signal, or the OOM killer
	msg := "the program ended with " + e.Status
	switch {
	case e.Timeout > 0:
		msg = fmt.Sprintf("the program ran past --timeout %s and was stopped (%s)", e.Timeout, e.Status)
	case e.AtOnce && killed:
		msg = "the program was " + e.Status + " as soon as it started"
	case e.AtOnce:
		msg = "the program exited at once with " + e.Status
	case killed:
		msg = "the program was " + e.Status
	}
	if len(e.LastLines) > 0 {
		return msg + "; its last lines: " + strings.Join(e.LastLines, " | ")
	}
	return msg + "; it printed nothing"
}

// batch is one batch program's run while it happens.
type batch struct {
	cfg         Config
	run         *runfmt.Run
	dir         string
	proc        *service.Process
	machine     *service.MachineSampler
	stopMachine func()
	sampler     *service.Sampler
	stopSampler func()
	// kt traces the program's threads from the kernel; ktNote says why
	// not when it is nil.
	kt     *ktrace.Session
	ktNote string
	perf   *batchPerf
	// start and end bound the program's run: from its release to its exit;
	// startMono is its start on CLOCK_MONOTONIC, the clock of perf's
	// samples.
	start, end time.Time
	startMono  time.Duration
	timedOut   bool
	cpu        *profile.Profile
	// cpuNote says why cpu is nil.
	cpuNote string
	// goVersion is the Go version the program was built with ("" for
	// another program); sched is its scheduler's trace.
	goVersion string
	sched     schedTrace
	// owners is the program's ownership model (userCode), decided once.
	owners *ownership.Model
	// threads are the kernel's totals over the program's run, from
	// threadsBefore (read as it was released) to its exit.
	threads, threadsBefore ktrace.Totals
	usage                  service.Usage
	usageOK                bool
	perflabCPU             time.Duration
	peak                   *peakSampler
	cpusetSize             int
	limitCores             float64
}

// Run runs a batch program once under the budget and measures it until
// it exits: wall time, CPU, the cores it used of those it could use, peak
// RSS, its threads' time as the kernel's scheduler split it (eBPF), its CPU
// profile (perf, from its first instruction, with source lines from its
// DWARF) and the findings, written as a run directory. A command that is
// not found fails before any directory is made. The Result is non-nil
// whenever a run directory was made, even with an error: a program that
// exits non-zero, runs past the timeout or is interrupted (session.ErrInterrupted)
// leaves a partial run.
func Run(ctx context.Context, cfg Config) (*session.Result, error) {
	cfg.Defaults()
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if err := findCommand(cfg.Command, cfg.Dir); err != nil {
		return nil, err
	}
	dir, run, err := session.CreateRun(&cfg.Config)
	if err != nil {
		return nil, err
	}
	run.Batch = &runfmt.Batch{TimeoutS: cfg.Timeout.Seconds()}
	b := &batch{cfg: cfg, dir: dir, run: run}
	err = b.execute(ctx)
	b.summarize()
	return b.finish(ctx, err)
}

// findCommand fails, naming the command, when it cannot be run.
func findCommand(command []string, dir string) error {
	if len(command) == 0 || command[0] == "" {
		return errors.New("no command given (put it after --)")
	}
	if _, err := service.FindProgram(command[0], dir); err != nil {
		return fmt.Errorf("running %w", err)
	}
	return nil
}

// execute launches the program held, attaches the kernel tracing and the
// profiler, lets it run and waits for its exit (or the timeout, or ctx).
func (b *batch) execute(ctx context.Context) error {
	b.startMachine()
	defer b.stopMachine()
	if err := b.launch(ctx); err != nil {
		return err
	}
	defer b.stopTarget()
	b.startTracing()
	b.startProfiler(ctx)
	b.startSampler()
	// Loading the kernel programs parsed the kernel's types (megabytes of
	// them): collect that garbage now, not while the program runs beside
	// perflab's collector.
	runtime.GC()
	self := selfCPU()
	b.traceProgram()
	b.cfg.Log(fmt.Sprintf("running %s (%s)", strings.Join(b.cfg.Command, " "), b.cfg.Budget))
	b.startMono, b.start = monoNow(), time.Now()
	if err := b.proc.Release(); err != nil {
		return err
	}
	b.startPeak()
	err := b.wait(ctx)
	b.perflabCPU = selfCPU() - self
	b.collect()
	return err
}

// wait waits for the program's exit, stopping it at the timeout or when
// ctx ends.
func (b *batch) wait(ctx context.Context) error {
	timer := time.NewTimer(b.cfg.Timeout)
	defer timer.Stop()
	var err error
	select {
	case <-b.proc.Exited():
	case <-timer.C:
		b.timedOut = true
		b.cfg.Log(fmt.Sprintf("the program ran past --timeout %s: stopping it", b.cfg.Timeout))
		b.stopProgram()
	case <-ctx.Done():
		err = fmt.Errorf("%w: the run covers the program until Ctrl-C", session.ErrInterrupted)
		b.stopProgram()
	}
	<-b.proc.Exited()
	b.end = time.Now()
	return err
}

// stopProgram stops the program (SIGTERM, then SIGKILL after the grace).
func (b *batch) stopProgram() {
	b.cfg.Log(fmt.Sprintf("stopping the program (SIGTERM, then SIGKILL after %s)", b.cfg.StopGrace))
	if err := b.proc.Stop(b.cfg.StopGrace); err != nil {
		b.warn("stopping the program: " + err.Error())
	}
}

// launch starts the program in its cgroup, held before its first
// instruction until the measurements are attached.
func (b *batch) launch(ctx context.Context) error {
	c := &b.cfg
	if err := service.CleanupStale(); err != nil {
		b.warn("removing stale cgroups: " + err.Error())
	}
	// No GODEBUG=gctrace=1, unlike a service: the runtime writes each
	// line in some thirty pieces, and each wakes perflab's reader (about
	// 2000 wake-ups a second for a program collecting 60 times a second,
	// 5% of a core); the GC's share comes from the CPU profile. The
	// scheduler's trace (traceScheduler) is kept to some 800 writes.
	lc := service.LaunchConfig{
		Command: c.Command, Dir: c.Dir, Budget: c.Budget, Name: c.Name, Hurry: c.Hurry, Hold: true,
		LogPath: filepath.Join(b.dir, "target.log"), Env: c.Env,
	}
	b.goVersion = goVersion(c.Command, c.Dir)
	if b.goVersion != "" {
		b.traceScheduler(&lc)
	}
	proc, err := service.Launch(ctx, lc)
	if err != nil {
		return err
	}
	b.proc = proc
	for _, w := range proc.Warnings() {
		b.warn(w)
	}
	b.limitCores = proc.CPULimitCores()
	b.cpusetSize = affinitySize(proc.PID())
	b.machine.SetService(proc.PID())
	return nil
}

// traceScheduler asks a Go program for its scheduler's trace, the
// timeline of its serial phases, beside the GODEBUG settings it has (from
// --env, else perflab's environment), unless they set the trace (then
// what it writes is read, and left in its output). Only the trace's lines
// are parsed: the drain does no other per-line work.
func (b *batch) traceScheduler(lc *service.LaunchConfig) {
	lc.OnLine, lc.LineMatch = b.sched.add, capture.SchedLineMatch
	godebug, set := lookupEnv(b.cfg.Env, "GODEBUG")
	if !set {
		godebug = os.Getenv("GODEBUG")
	}
	if !setsSchedTrace(godebug) {
		lc.Env = append(slices.Clone(lc.Env), "GODEBUG="+withSchedTrace(godebug, schedTraceMS(b.launchGOMAXPROCS())))
		// The trace perflab asked for is not the program's own output.
		lc.HideLine = capture.IsSchedLine
	}
}

// launchGOMAXPROCS is the GOMAXPROCS a Go program will start with, as
// far as it is known before it starts: its budget's CPUs, else the host's.
func (b *batch) launchGOMAXPROCS() int {
	cpus := len(b.cfg.Budget.CPUSet)
	if cpus == 0 {
		cpus = hostCores()
	}
	n, _ := goMaxProcs(envValue(b.cfg.Env, "GOMAXPROCS"), cpus, b.cfg.Budget.CPUs, b.goVersion)
	return n
}

// stopTarget removes the program's cgroup (killing what is left of it)
// and closes its log.
func (b *batch) stopTarget() {
	if err := b.proc.Stop(b.cfg.StopGrace); err != nil {
		b.warn("stopping the program: " + err.Error())
	}
}

// startMachine samples the machine beside the program for the run.
func (b *batch) startMachine() {
	b.machine, b.stopMachine = session.SampleMachine(batchSampleInterval)
}

// startSampler samples the program's CPU, its threads' waits for a CPU,
// its memory and throttling until it exits, every batchTimelineStep: the
// steps of its timeline.
func (b *batch) startSampler() {
	b.sampler = service.NewSampler(b.proc, batchTimelineStep)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.sampler.Run(context.Background())
	}()
	b.stopSampler = func() { <-done }
}

// batchSampleInterval is how often the machine beside the program is
// read: slower than a service's sampler (its cost is perflab's, beside the
// program's; the machine's figures are the run's totals, not a series).
const batchSampleInterval = 500 * time.Millisecond

func (b *batch) warn(msg string) {
	b.run.Warnings = append(b.run.Warnings, msg)
	b.cfg.Log("warning: " + msg)
}
