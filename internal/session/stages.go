package session

import (
	"context"

	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// The stages of a run that package lab calls in order (New is the
// first), and what a measure stage of its own (find-max's) needs of the
// session.

// Start is the start-or-attach stage: it samples the machine for the
// whole run, launches or attaches to the service and waits until it
// answers, and checks an explicit pprof endpoint.
func (s *Session) Start(ctx context.Context) error {
	s.startMachine()
	err := s.explainStart(s.startTarget(ctx))
	if err == nil {
		err = s.prof.CheckPprof(ctx)
	}
	return err
}

// PinLoad confines perflab's threads to --load-cpus once the service
// runs, and returns the function that frees them.
func (s *Session) PinLoad() func() { return s.pinLoad() }

// Warm is the warm stage: the warm-up's load, then the choice of the
// profilers (after the warm-up: a pprof listener the service opens a
// little after its API has had the time to come up).
func (s *Session) Warm(ctx context.Context) error {
	if err := s.warmup(ctx); err != nil {
		return err
	}
	return s.prof.Pick(ctx)
}

// ExitedEarly reports a service that exited by itself after the load
// but before perflab stopped it (while the last profiles were fetched,
// say).
func (s *Session) ExitedEarly() error { return s.exitedEarly() }

// Stop stops a launched service (once) and its sampler, after deciding
// the run's ownership model, which reads the processes' executables
// while they run.
func (s *Session) Stop() {
	s.decideOwnership()
	s.stopTarget()
}

// StopMachine stops sampling the machine, once the decide stage has
// read it.
func (s *Session) StopMachine() { s.stopMachine() }

// Result is the run's record and directory.
func (s *Session) Result() *Result { return &Result{Run: s.run, Dir: s.dir} }

// Record is the run's record.
func (s *Session) Record() *runfmt.Run { return s.run }

// Config is the run's configuration, its defaults filled in.
func (s *Session) Config() *Config { return &s.cfg }

// Warn records a warning in the run and tells the user.
func (s *Session) Warn(msg string) { s.warn(msg) }

// RunLoad drives one load at the service, ended early (with an error) if
// the service exits.
func (s *Session) RunLoad(ctx context.Context, cfg load.Config) (*runfmt.LoadResult, *load.Attacker, error) {
	return s.runLoad(ctx, cfg)
}

// Exited is the error of a service that stopped by itself during phase.
func (s *Session) Exited(phase string) error { return s.errExited(phase) }

// Sampler is the sampler of the service's processes, nil when it has
// none (a URL alone); Machine the machine's; LimitCores the service's
// CPU budget as applied.
func (s *Session) Sampler() *service.Sampler        { return s.sampler }
func (s *Session) Machine() *service.MachineSampler { return s.machine }
func (s *Session) LimitCores() float64              { return s.limitCores }
