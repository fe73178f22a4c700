package session

import (
	"context"

	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// ErrNotTheService marks a --pprof endpoint that belongs to another process
// than the service: bad input (exit 2) unless --force.
var ErrNotTheService = profiling.ErrNotTheService

// profileHost is what the run's profiles (package profiling) see of the
// session: its warnings, its directory, its list of profiles and the
// service's processes.
type profileHost struct{ s *Session }

var _ profiling.Host = profileHost{}

func (h profileHost) Warn(msg string)              { h.s.warn(msg) }
func (h profileHost) Degrade(d runfmt.Degradation) { h.s.degrade(d) }
func (h profileHost) Dir() string                  { return h.s.dir }

// AddProfile lists a saved profile in the run; capture goroutines call it.
func (h profileHost) AddProfile(ref runfmt.ProfileRef) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	h.s.run.Profiles = append(h.s.run.Profiles, ref)
}

// Service is the launched or attached service, nil for a URL alone.
func (h profileHost) Service() *service.Process { return h.s.proc }

func (h profileHost) ServicePIDs(ctx context.Context) []int { return h.s.servicePIDs(ctx) }

// profilingConfig is what the run's profiles need of its configuration.
func profilingConfig(c *Config) profiling.Config {
	pc := profiling.Config{Choice: c.Profiler, Profilers: c.Profilers, Pprof: c.Pprof, Guess: PprofGuess, Force: c.Force, PerfHz: c.PerfHz,
		Trace: c.Trace, NoTrace: c.NoTrace, SnapshotTimeout: c.SnapshotTimeout, Log: c.Log, Src: c.Src}
	if c.UserCode != nil {
		pc.UserCode = c.UserCode.String()
	}
	if len(c.Load.Targets) > 0 {
		pc.LoadURL = c.Load.Targets[0].URL
	}
	return pc
}

// PprofGuess, when set, is the pprof endpoint tried when the load URL's
// host serves none, instead of net/http/pprof's customary address (a
// variable so that a test can put a decoy on a port of its own).
var PprofGuess string

// servicePIDs are the processes of the service: the launched or attached
// process tree, else the owner of the load URL's listening socket (and its
// children), else none known.
func (s *Session) servicePIDs(ctx context.Context) []int {
	if s.proc != nil {
		return s.proc.PIDs()
	}
	if len(s.cfg.Load.Targets) == 0 {
		return nil
	}
	pid, found, err := service.ListenerOwner(ctx, s.cfg.Load.Targets[0].URL.Host, nil)
	if err != nil || !found {
		return nil
	}
	return service.ProcessTree(pid)
}

// seenPIDs lists every process of the service perflab saw: at the start
// and while profiling.
func (s *Session) seenPIDs() []int {
	pids := append([]int(nil), s.pids...)
	for _, p := range s.prof.Processes() {
		pids = append(pids, p.PID)
	}
	return pids
}
