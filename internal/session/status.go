package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"perflab/internal/profiling"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// New is the prepare stage of a run of cfg: it creates the run's
// directory and record.
func New(cfg Config) (*Session, error) {
	cfg.Defaults()
	dir, run, err := CreateRun(&cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, dir: dir, run: run}
	s.prof = profiling.New(profileHost{s}, profilingConfig(&s.cfg))
	return s, nil
}

// CreateRun creates the directory and record of a run of cfg started now:
// complete until it says otherwise, with cfg's revision.
func CreateRun(cfg *Config) (dir string, run *runfmt.Run, err error) {
	started := time.Now()
	dir, id, err := cfg.Store.Create(cfg.Name, started)
	if err != nil {
		return "", nil, err
	}
	run = &runfmt.Run{
		SchemaVersion: runfmt.SchemaVersion, Name: cfg.Name, ID: id, Started: started,
		Status: runfmt.StatusComplete, Config: recordConfig(cfg), Env: environment(cfg.Version),
	}
	if rev := cfg.Revision; rev != nil {
		run.Revision = rev
		run.Env.GitCommit, run.Env.GitDirty = rev.Commit, rev.Uncommitted
	}
	return dir, run, nil
}

// Status records how the run ended, by its error err: partial with
// the reason, degraded, or complete; it returns the run's error. Ctrl-C
// in any phase (the launch, the wait until ready, a profile fetch) is an
// interruption, whatever error it caused.
func (s *Session) Status(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		err = fmt.Errorf("%w: %v", ErrInterrupted, err)
	}
	switch {
	case err != nil:
		s.run.Status, s.run.PartialKind, s.run.PartialReason = runfmt.StatusPartial, PartialKind(err, s.run.Target), OneLine(err.Error())
	case s.run.Stuck != nil:
		err = fmt.Errorf("%w: %s", ErrStuck, prose.StuckReason(s.run.Stuck).Text())
		s.run.Status, s.run.PartialKind, s.run.PartialReason = runfmt.StatusStuck, runfmt.PartialStuck, OneLine(err.Error())
	case len(s.run.Degradations) > 0:
		s.run.Status = runfmt.StatusDegraded
	}
	return err
}

// ErrStuck is the error of a run whose service stopped answering in the
// window: what was measured is saved, with where its threads waited.
var ErrStuck = errors.New("the service stopped answering")

// The errors of a window none of whose requests finished, or succeeded.
var (
	errNoRequestFinished  = errors.New("no request finished")
	errNoRequestSucceeded = errors.New("no request succeeded")
)

// PartialKind is why a run that ended with err stopped, where perflab
// knows it (t, the service's summary, says whether the kernel's OOM
// killer ended it).
func PartialKind(err error, t *runfmt.TargetSummary) runfmt.PartialKind {
	var exited *ServiceExitError
	switch {
	case errors.Is(err, ErrInterrupted):
		return runfmt.PartialInterrupted
	case t != nil && t.OOMKilled:
		return runfmt.PartialOOMKilled
	case errors.Is(err, ErrStuck):
		return runfmt.PartialStuck
	case errors.As(err, &exited):
		return runfmt.PartialExited
	case errors.Is(err, service.ErrExitedBeforeReady):
		return runfmt.PartialExitedBeforeReady
	case errors.Is(err, service.ErrNotReady):
		return runfmt.PartialNotReady
	case errors.Is(err, errNoRequestFinished):
		return runfmt.PartialNoRequestFinished
	case errors.Is(err, errNoRequestSucceeded):
		return runfmt.PartialNoRequestSucceeded
	}
	return runfmt.PartialFailed
}
