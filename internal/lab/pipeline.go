package lab

import (
	"context"
	"fmt"
	"time"

	"perflab/internal/decide"
	"perflab/internal/session"
)

// A run of a service goes through these stages, in this order:
//
//	prepare → start or attach → warm → measure → collect → decide → save → render
//
// Each is a call below: the session (package session) prepares the run's
// directory and record, starts or attaches to the service, warms it up and
// measures it; package decide computes the record's figures from what was
// measured; the session saves the record and renders report.html. Run,
// Profile and FindMax differ in their measure and decide stages only.

// Run performs one run and writes its directory. The returned Result is
// non-nil whenever a run directory was created, even with an error: the run is
// then recorded as partial with the error as its reason.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	measure := func(ctx context.Context, s *session.Session) error { return s.Measure(ctx) }
	return pipeline(ctx, cfg, measure, (*decide.Decision).Run)
}

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
	measure := func(ctx context.Context, s *session.Session) error { return s.ProfileOnly(ctx, window) }
	return pipeline(ctx, cfg, measure, (*decide.Decision).Profile)
}

// pipeline runs the stages of one run in order, with measure as its
// measure stage and decide (if any) as its decide stage, and writes the
// run directory whatever happened.
func pipeline(ctx context.Context, cfg Config, measure func(context.Context, *session.Session) error, decideRun func(*decide.Decision)) (*Result, error) {
	s, err := session.New(cfg) // prepare
	if err != nil {
		return nil, err
	}
	err = s.Start(ctx) // start or attach
	unpin := s.PinLoad()
	if err == nil {
		err = s.Warm(ctx) // warm
	}
	if err == nil {
		err = measure(ctx, s) // measure
	}
	if err == nil {
		err = s.ExitedEarly()
	}
	s.Stop()
	unpin()
	dec := decide.New(s.Collect()) // collect
	if decideRun != nil {
		decideRun(dec) // decide
	}
	dec.Ended()
	s.StopMachine()
	err = s.Status(ctx, err)
	if serr := s.Save(); serr != nil { // save
		return s.Result(), serr
	}
	s.Render(dec.Flames) // render
	return s.Result(), err
}
