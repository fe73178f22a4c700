package lab

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// Profile captures the service's profiles for window without driving any
// load (`perflab profile`): from the pprof endpoint cfg.Pprof, or by
// sampling the process cfg.PID or the launched cfg.Command with perf,
// py-spy or rbspy. It writes a run directory like Run, without load
// figures; per-request columns are absent. cfg.Load and cfg.Warmup are
// ignored. The run is partial when no profiler could be used or the capture
// ended early.
func Profile(ctx context.Context, cfg Config, window time.Duration) (*Result, error) {
	if window <= 0 {
		return nil, fmt.Errorf("profiling window %s: must be > 0", window)
	}
	cfg.Warmup = 0
	cfg.Load.Targets, cfg.Load.Duration = nil, window
	cfg.LoadFlags = nil
	cfg.NoTrace = !cfg.Trace // no requests to split: a trace (of the whole window) only when asked
	return withSession(ctx, cfg, func(s *session) error { return s.profileOnly(ctx, window) }, (*session).summarizeProfile)
}

// profileOnly captures the window's profiles with no load; it ends early
// if the service exits or ctx is cancelled.
func (s *session) profileOnly(ctx context.Context, window time.Duration) error {
	p := s.prof
	p.Before(ctx)
	if p.Chosen() == "" {
		return errors.New("no profiler could be used (give --pprof URL, --pid PID or -- CMD)")
	}
	s.cfg.Log(fmt.Sprintf("profiling with %s for %s", p.Chosen(), window.Round(time.Millisecond)))
	done := p.During(ctx, window) // returns when the samplers sample
	from := time.Now()
	p.WindowStarts()
	var exited <-chan struct{}
	if s.proc != nil {
		exited = s.proc.Exited()
	}
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("%w: the profiles cover what completed before Ctrl-C", ErrInterrupted)
	case <-exited:
		err = s.errExited("profiling")
	}
	if err != nil {
		p.Abandon()
		<-done
	}
	p.SetWindow(from, time.Now())
	p.WindowEnds()
	fin, cancel := s.finishing(ctx)
	defer cancel()
	p.After(fin)
	if err == nil && p.Profile(runfmt.ProfileCPU) == nil {
		err = errors.New("no CPU profile was captured (see the warnings)")
		if why := s.lastDegradation(); why != "" {
			err = errors.New("no CPU profile was captured: " + why)
		}
	}
	return err
}

// summarizeProfile fills what a profile-only run measured: the service's
// CPU over the window (when it has a process), the GC, the hot and
// allocating functions and the findings, without per-request figures.
func (s *session) summarizeProfile() {
	r, p := s.run, s.prof
	from, to := p.Window()
	cpu, allocs := p.Profile(runfmt.ProfileCPU), p.Profile(runfmt.ProfileAllocs)
	if from.IsZero() {
		return
	}
	if s.sampler != nil {
		ts := target.Window(s.sampler.Samples(), from, to, s.limitCores, runtime.NumCPU())
		ts.MemoryLimitBytes, ts.PIDs = s.limitMemory, s.pids
		if r.Target != nil {
			ts.ExitCode = r.Target.ExitCode
		}
		r.Target = &ts
	}
	r.Quality = s.quality(from, to, r.Target, nil)
	r.GC = s.gcSummary(from, to)
	r.Profiling = s.profilingSummary()
	uc, verdictCPU := s.userCode(), s.verdictCPU()
	if cpu != nil {
		s.checkCPUProfile(len(cpu.Sample), r.Target)
		r.Hot = analysis.HotFor(cpu, 0, hotRows, uc)
	}
	if allocs != nil {
		r.Allocs = analysis.AllocTopFor(allocs, 0, allocRows, uc)
	}
	r.Findings = findings.Findings(findings.FindingInput{
		CPU: verdictCPU, Allocs: allocs, Mutex: p.Profile(runfmt.ProfileMutex), Block: p.Profile(runfmt.ProfileBlock),
		GoroutinesStart: p.Profile(runfmt.ProfileGoroutineStart), GoroutinesEnd: p.Profile(runfmt.ProfileGoroutine),
		WindowSeconds: to.Sub(from).Seconds(), Target: r.Target, GC: r.GC, Quality: r.Quality, UserCode: uc, Runtime: s.serviceRuntime(),
	})
	s.culprit()
}
