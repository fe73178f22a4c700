package session

import (
	"context"

	"perflab/internal/analysis"
	"perflab/internal/decide"
	"perflab/internal/runfmt"
	"perflab/internal/stuck"
)

// watchStuck watches the next load the session runs (the window's) for
// requests that stop finishing (package stuck), by way of Config.Watch,
// which it wraps until the returned finish is called.
func (s *Session) watchStuck(ctx context.Context) (finish func(r *runfmt.LoadResult, exited bool)) {
	c := stuck.Config{Load: s.cfg.Load, Window: s.windowLength(), SnapshotTimeout: s.cfg.SnapshotTimeout, Log: s.cfg.Log, Warn: s.warn,
		Profiles: s.prof, PIDs: s.servicePIDs, Finishing: s.finishing,
		IsUser:  func(name, file string) bool { return s.userCode().IsUser(name, file) },
		Sources: func() *analysis.Sources { return decide.Sources(s.cfg.Dir, s.cfg.PID) },
		Record: func(st *runfmt.Stuck) {
			s.mu.Lock()
			s.run.Stuck = st
			s.mu.Unlock()
		}}
	if s.sampler != nil {
		c.Samples = s.sampler.Samples
	}
	prev := s.cfg.Watch
	w := stuck.Watch(ctx, c, prev)
	s.cfg.Watch = w.Watch
	return func(r *runfmt.LoadResult, exited bool) {
		w.Stop()
		s.cfg.Watch = prev
		w.Finish(r, exited)
	}
}
