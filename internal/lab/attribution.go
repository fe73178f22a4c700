package lab

import (
	"context"
	"fmt"
	"strings"

	"perflab/internal/profiling"
	"perflab/internal/runfmt"
)

// perRequest is the count the window's figures per request divide by: the
// requests of this load the service answered; 0 (no figure per request)
// when other clients reached the service in the window, whose requests
// its CPU, profile and allocations hold too. It says so in a warning and
// in the target's note.
func (s *session) perRequest(l *runfmt.LoadResult) int64 {
	n, hosts := s.waits.peers.clients()
	if n == 0 {
		return l.Answered() // the refused cost next to nothing (96.6% refused read 0.018 ms)
	}
	if len(hosts) > 3 {
		hosts = append(hosts[:3], fmt.Sprintf("%d more", len(hosts)-3))
	}
	s.otherClients = n
	s.perRequestNote = fmt.Sprintf("not given: other clients reached the service in the window (%d connection(s) that are not perflab's, from %s), so its CPU is not this load's alone", n, strings.Join(hosts, ", "))
	s.warn("CPU per request " + s.perRequestNote + "; profile shares still hold")
	return 0
}

// checkLoadServed says when the load URL's port is not listened on by the
// attached service (--pid, --cgroup): the load goes to another process (a
// proxy in front of it, or the wrong port), and the service's CPU is not
// what the load cost.
func (s *session) checkLoadServed(ctx context.Context) {
	if s.proc == nil || len(s.cfg.Load.Targets) == 0 || (s.cfg.PID == 0 && s.cfg.Cgroup == "") {
		return
	}
	if via := profiling.OtherListener(ctx, s.cfg.Load.Targets[0].URL, s.proc.PIDs()); via != "" {
		s.warn("the load URL's " + via + ": the load reaches the service through it or not at all, so the service's CPU is not what the load cost")
	}
}
