package lab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"perflab/internal/decide"
	"perflab/internal/runfmt"
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
	return withSession(ctx, cfg, func(s *session) error { return s.profileOnly(ctx, window) }, (*decide.Decision).Profile)
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
