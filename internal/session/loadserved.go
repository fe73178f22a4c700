package session

import (
	"context"

	"perflab/internal/profiling"
)

// checkLoadServed says when the load URL's port is not listened on by the
// attached service (--pid, --cgroup): the load goes to another process (a
// proxy in front of it, or the wrong port), and the service's CPU is not
// what the load cost.
func (s *Session) checkLoadServed(ctx context.Context) {
	if s.proc == nil || len(s.cfg.Load.Targets) == 0 || (s.cfg.PID == 0 && s.cfg.Cgroup == "") {
		return
	}
	if via := profiling.OtherListener(ctx, s.cfg.Load.Targets[0].URL, s.proc.PIDs()); via != "" {
		s.warn("the load URL's " + via + ": the load reaches the service through it or not at all, so the service's CPU is not what the load cost")
	}
}
