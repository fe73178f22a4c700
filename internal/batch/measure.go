package batch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"

	"perflab/internal/capture"
	"perflab/internal/ktrace"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/session"
)

// batchAttachTimeout bounds the wait for perf to attach to the held
// program; past it the program runs unprofiled from its start.
const batchAttachTimeout = 30 * time.Second

// batchPerf is perf recording the program from its first instruction.
type batchPerf struct {
	stop chan struct{}
	done chan struct{}
	prof *profile.Profile
	err  error
	cpu  time.Duration
	// times are its samples' times (CLOCK_MONOTONIC).
	times []capture.SampleTime
}

// startTracing attaches the kernel's scheduler tracing (no process yet:
// the program is added just before it runs, so the gate's wait is not its
// time).
func (b *batch) startTracing() {
	s, err := ktrace.Start(ktrace.Config{SchedulerOnly: true})
	if err != nil {
		b.ktNote = strings.TrimPrefix(err.Error(), ktrace.ErrUnavailable.Error()+": ")
		return
	}
	b.kt = s
}

// traceProgram adds the held program to the kernel tracing and reads the
// totals its run's are counted from (the kernel programs' own CPU so far
// is the session's start, not the run's).
func (b *batch) traceProgram() {
	if b.kt == nil {
		return
	}
	err := b.kt.AddPIDs(b.proc.PID())
	if err == nil {
		b.threadsBefore, err = b.kt.Read()
	}
	if err != nil {
		b.ktNote = "tracing the program: " + err.Error()
		b.closeTracing()
	}
}

func (b *batch) closeTracing() {
	if b.kt != nil {
		_ = b.kt.Close()
		b.kt = nil
	}
}

// profiler is the profiler chosen for the program: perf, or none.
func (b *batch) profiler() (runfmt.Profiler, bool) {
	switch p, one := b.cfg.Profiler.Profiler(); {
	case b.cfg.Profiler == session.ProfilerNone:
		return "", false
	case one && p != runfmt.ProfilerPerf:
		b.warn(fmt.Sprintf("--profiler %s does not profile a batch program (perf does, from its first instruction): no CPU profile", p))
		return "", false
	}
	return runfmt.ProfilerPerf, true
}

// startProfiler starts perf on the held program and waits until it
// samples (or fails, or batchAttachTimeout passes).
func (b *batch) startProfiler(ctx context.Context) {
	if _, ok := b.profiler(); !ok {
		b.cpuNote = "no CPU profile was taken (--profiler " + string(b.cfg.Profiler) + ")"
		return
	}
	p := &batchPerf{stop: make(chan struct{}), done: make(chan struct{})}
	attached := make(chan struct{})
	cfg := capture.PerfConfig{
		PIDs: []int{b.proc.PID()}, Hz: b.cfg.PerfHz, CPUUsed: &p.cpu, Stop: p.stop, Times: &p.times,
		// The program's whole run, its stop and the grace after it.
		Seconds:    (b.cfg.Timeout + 2*b.cfg.StopGrace + 10*time.Second).Seconds(),
		OnAttached: func() { close(attached) },
	}
	go func() {
		defer close(p.done)
		p.prof, p.err = capture.PerfRecord(context.WithoutCancel(ctx), cfg)
	}()
	b.perf = p
	select {
	case <-attached:
	case <-p.done:
	case <-time.After(batchAttachTimeout):
		b.warn(fmt.Sprintf("perf did not attach within %s: the CPU profile misses the program's start", batchAttachTimeout))
	case <-ctx.Done():
	}
}

// collect gathers what the program left once it has exited: perf's
// samples with their source lines, the kernel's thread times, the rusage.
func (b *batch) collect() {
	b.usage, b.usageOK = b.proc.Usage()
	if b.kt != nil {
		t, err := b.kt.Read()
		if err != nil {
			b.ktNote = err.Error()
		} else {
			b.threads = t.Sub(b.threadsBefore)
		}
		b.closeTracing()
	}
	if p := b.perf; p != nil {
		close(p.stop)
		<-p.done
		switch {
		case p.err != nil:
			b.cpuNote = "the CPU profile failed: " + p.err.Error()
			b.degrade(runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: p.err.Error()})
		case len(p.prof.Sample) == 0:
			b.cpuNote = "perf recorded no sample of the program (it ran too briefly on a CPU)"
			b.warn(b.cpuNote)
		default:
			for _, w := range capture.AddSourceLines(p.prof) {
				b.warn(w)
			}
			b.cpu = p.prof
		}
	}
	if b.stopSampler != nil {
		b.stopSampler()
	}
}

// degrade records a profile the run needed and does not have.
func (b *batch) degrade(d runfmt.Degradation) {
	b.run.Degradations = append(b.run.Degradations, d)
	b.cfg.Log("warning: " + report.DegradationText(b.run, d))
}

// selfCPU is perflab's own CPU time so far (all its threads).
func selfCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// affinitySize is how many CPUs pid may run on (0 when unknown).
func affinitySize(pid int) int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return 0
	}
	return set.Count()
}
