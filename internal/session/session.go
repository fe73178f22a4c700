package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"perflab/internal/capture"
	"perflab/internal/load"
	"perflab/internal/ownership"
	"perflab/internal/profiling"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/units"
	"perflab/internal/window"
)

// ErrInterrupted is a run ended by its context (Ctrl-C, SIGTERM): it is
// partial, and covers what completed before.
var ErrInterrupted = errors.New("interrupted")

// Result is a finished (or partial) run.
type Result struct {
	Run *runfmt.Run
	Dir string
}

// Session is one run of a service while it happens.
type Session struct {
	cfg     Config
	run     *runfmt.Run
	dir     string
	proc    *service.Process
	sampler *service.Sampler
	gc      capture.GCTrace
	stopSmp func()
	prof    *profiling.Set
	// peers samples the service's connections over the window.
	peers *window.PeerSampler
	// machine samples the host beside the service for the whole session.
	machine     *service.MachineSampler
	stopMachine func()
	// The budget as applied, read before the service stops.
	limitCores  float64
	limitMemory int64
	pids        []int
	// owners is the run's ownership model, decided once while the
	// service runs (decideOwnership).
	owners *ownership.Model
	env    map[string]string // the service's environment at start
	kern   *window.Kernel    // the kernel's timing of the window
	own    ownEnv            // perflab's own settings in a launched service's environment
	// loadPorts are the local ports of the load's connections: the
	// service's other inbound connections are other clients'.
	loadPorts load.PortSet
	// mu guards the run's Warnings and Profiles, which the capture
	// goroutines of the measured window (CPU profile, trace, samplers) add
	// to while the main one runs.
	mu sync.Mutex
}

// OneLine is s on one line, its line breaks made "; ".
func OneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }

func recordConfig(c *Config) runfmt.Config {
	rc := runfmt.Config{Command: c.Command, PID: c.PID, CPUs: c.Budget.CPUs, MemoryBytes: c.Budget.MemoryBytes,
		WarmupS: c.Warmup.Seconds(), Load: c.LoadFlags, ServiceCPUs: c.Budget.CPUSet.String(), LoadCPUs: c.LoadCPUs.String()}
	if len(c.Load.Targets) > 0 {
		rc.URL = c.Load.Targets[0].URL.String()
	}
	if len(c.Env) > 0 {
		rc.Env = map[string]string{}
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			rc.Env[k] = v
		}
	}
	return rc
}

func (s *Session) warn(msg string) {
	s.mu.Lock()
	s.run.Warnings = append(s.run.Warnings, msg)
	s.mu.Unlock()
	s.cfg.Log("warning: " + msg)
}

// degrade records a profile the run needed and does not have: the run is
// then "degraded", with d at the top of its verdict.
func (s *Session) degrade(d runfmt.Degradation) {
	s.mu.Lock()
	s.run.Degradations = append(s.run.Degradations, d)
	msg := report.DegradationText(s.run, d)
	s.mu.Unlock()
	s.cfg.Log("warning: " + msg)
}

// lastDegradation says the last degradation recorded so far; "" for
// none.
func (s *Session) lastDegradation() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.run.Degradations); n > 0 {
		return report.DegradationText(s.run, s.run.Degradations[n-1])
	}
	return ""
}

// startTarget launches or attaches to the service and waits until it answers.
func (s *Session) startTarget(ctx context.Context) error {
	c := &s.cfg
	var err error
	switch {
	case len(c.Command) > 0:
		// Groups left by a perflab that was killed (a second Ctrl-C) go first.
		if err := service.CleanupStale(); err != nil {
			s.warn("removing stale cgroups: " + err.Error())
		}
		lc := service.LaunchConfig{
			Command: c.Command, Dir: c.Dir, Budget: c.Budget, Name: c.Name, Hurry: c.Hurry,
			LogPath: filepath.Join(s.dir, "target.log"),
			// Only GC trace lines are parsed: the drain does no other per-line work.
			OnLine:    func(line string) { s.gc.Add(line, time.Now()) },
			LineMatch: capture.GCLineMatch,
		}
		var gcTrace bool
		lc.Env, gcTrace = s.launchEnv()
		if gcTrace {
			// The trace perflab asked for is not the service's own output:
			// error messages quote the service's last lines without it.
			lc.HideLine = capture.IsGCLine
		}
		c.Log(fmt.Sprintf("starting %s (%s)", strings.Join(c.Command, " "), c.Budget))
		s.proc, err = service.Launch(ctx, lc)
	case c.PID > 0 && (c.Budget.CPUs > 0 || c.Budget.MemoryBytes > 0):
		// A budget group a killed perflab left goes first: its service
		// back where it was.
		if err := service.CleanupStale(); err != nil {
			s.warn("removing stale cgroups: " + err.Error())
		}
		c.Log(fmt.Sprintf("moving pid %d into a cgroup with %s for the run (back into its own after)", c.PID, c.Budget))
		s.proc, err = service.AttachBudget(c.PID, c.Budget)
	case c.PID > 0:
		s.proc, err = service.Attach(c.PID)
	case c.Cgroup != "":
		s.proc, err = service.AttachCgroup(c.Cgroup)
	default:
		// A URL alone: the local process listening on it is the service, so
		// the machine's measurement does not count its CPU as another's.
		if pids := s.servicePIDs(ctx); len(pids) > 0 && s.machine != nil {
			s.machine.SetService(pids[0])
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, w := range s.proc.Warnings() {
		s.warn(w)
	}
	s.limitCores, s.limitMemory, s.pids = s.proc.CPULimitCores(), s.proc.MemoryLimitBytes(), s.proc.PIDs()
	if s.machine != nil {
		s.machine.SetService(s.proc.PID())
	}
	sctx, cancel := context.WithCancel(context.Background())
	s.sampler = service.NewSampler(s.proc, 200*time.Millisecond)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		s.sampler.Run(sctx)
	}()
	// Stopping waits for the sampler's last sample, which summarize needs.
	s.stopSmp = func() { cancel(); <-sampled }
	if c.ReadyURL != "" {
		c.Log("waiting for " + c.ReadyURL)
		if err := service.WaitReady(ctx, c.readyProbe(), c.ReadyTimeout, s.proc); err != nil {
			return err
		}
	}
	s.checkLoadServed(ctx)
	return nil
}

// stopTarget stops a launched service (once) and the sampler.
func (s *Session) stopTarget() {
	if s.stopSmp != nil {
		s.stopSmp()
		s.stopSmp = nil
	}
	if s.proc == nil || s.run.Target != nil && s.run.Target.ExitCode != nil {
		return
	}
	running := true
	select {
	case <-s.proc.Exited():
		running = false // it ended by itself after the window
	default:
	}
	if len(s.cfg.Command) > 0 {
		s.cfg.Log(fmt.Sprintf("stopping the service (SIGTERM, then SIGKILL after %s)", s.cfg.StopGrace))
	}
	if err := s.proc.Stop(s.cfg.StopGrace); err != nil {
		s.warn("stopping the service: " + err.Error())
	}
	if len(s.cfg.Command) > 0 && !s.cfg.NoPerfMap {
		profiling.RemovePerfMaps(s.seenPIDs())
	}
	if code := s.proc.ExitCode(); code != nil {
		if s.run.Target == nil {
			s.run.Target = &runfmt.TargetSummary{}
		}
		s.run.Target.ExitCode = code
		s.run.Target.StoppedByPerflab = running && len(s.cfg.Command) > 0
		var oom *service.OOMError
		if errors.As(s.proc.ExitErr(), &oom) {
			s.run.Target.OOMKilled, s.run.Target.MemoryLimitBytes = true, oom.LimitBytes
		}
	}
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func withGCTrace(godebug string) string {
	if strings.Contains(godebug, "gctrace=") {
		return godebug
	}
	if godebug == "" {
		return "gctrace=1"
	}
	return godebug + ",gctrace=1"
}

// ServiceExitError is a service that stopped by itself (with any exit
// status) while perflab measured it: the run is partial.
type ServiceExitError struct {
	Phase string
	// Status is "exit status 0", "killed by signal 9 (killed)", ...
	Status string
	// LastLines are the service's own last lines of output.
	LastLines []string
}

func (e *ServiceExitError) Error() string {
	msg := fmt.Sprintf("the service exited during %s (%s)", e.Phase, e.Status)
	if len(e.LastLines) > 0 {
		return msg + "; its last lines: " + strings.Join(e.LastLines, " | ")
	}
	return msg + "; it printed nothing"
}

// errExited reports a service that stopped while it was being measured,
// with its last lines once its output has been read to the end (gctrace
// lines, which perflab asked for, are not the service's words).
func (s *Session) errExited(phase string) error {
	e := &ServiceExitError{Phase: phase, Status: "exit status 0"}
	if err := s.proc.ExitErr(); err != nil {
		e.Status = err.Error()
	}
	for _, line := range s.proc.LogTail(50) { // drained first (LogTail waits for it)
		if _, gc := capture.ParseGCLine(line); !gc {
			e.LastLines = append(e.LastLines, line)
		}
	}
	e.LastLines = e.LastLines[max(len(e.LastLines)-5, 0):]
	return e
}

// exitedEarly reports a service that exited by itself after the load but
// before perflab stopped it (while the last profiles were fetched, say).
func (s *Session) exitedEarly() error {
	if s.proc == nil {
		return nil
	}
	select {
	case <-s.proc.Exited():
		return s.errExited("the end of the run")
	default:
		return nil
	}
}

// loadDrain bounds how long a run's closed-model load lets the requests
// in flight at its end complete (and --timeout, when shorter).
const loadDrain = 2 * time.Second

// runLoad drives one load, ended early if the service exits. A closed
// model drains (see load.Config.Drain): the CPU the service spends in the
// window is then that of requests the window counts, not also of requests
// it cut off (nor, in the next window, of those the warm-up cut off).
func (s *Session) runLoad(ctx context.Context, cfg load.Config) (*runfmt.LoadResult, *load.Attacker, error) {
	cfg.LocalPorts = &s.loadPorts
	if cfg.Drain == 0 {
		cfg.Drain = loadDrain
		if cfg.Timeout > 0 {
			cfg.Drain = min(cfg.Timeout, loadDrain)
		}
	}
	a, err := load.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	exited := make(chan struct{})
	if s.proc != nil {
		go func() {
			select {
			case <-s.proc.Exited():
				close(exited)
				cancel()
			case <-lctx.Done():
			}
		}()
	}
	var done func()
	if s.cfg.Watch != nil {
		done = s.cfg.Watch(a)
	}
	s.edgeScan()
	r := a.Run(lctx)
	s.edgeScan()
	if done != nil {
		done()
	}
	select {
	case <-exited:
		// The load was stopped because the service exited, not by the
		// user: the result is cut short, not interrupted.
		r.Interrupted = ctx.Err() != nil
		return r, a, errors.New("exited")
	default:
	}
	return r, a, nil
}

func (s *Session) warmup(ctx context.Context) error {
	if s.cfg.Warmup <= 0 {
		return nil
	}
	s.cfg.Log(fmt.Sprintf("warming up for %s", s.cfg.Warmup))
	s.markConns()
	wc := s.cfg.Load
	wc.Duration, wc.Requests = s.cfg.Warmup, 0
	wc.Stages = nil
	if wc.Rate == 0 && len(s.cfg.Load.Stages) > 0 {
		wc.Rate = s.cfg.Load.Stages[0].Target
	}
	var before map[int]float64
	if s.proc != nil {
		before = profiling.ProcessCPU(s.proc.PIDs())
	}
	r, _, err := s.runLoad(ctx, wc)
	if before != nil && err == nil {
		s.prof.NoteWarmup(before, profiling.ProcessCPU(s.proc.PIDs()))
	}
	switch {
	case err != nil:
		return s.errExited("the warm-up")
	case ctx.Err() != nil:
		return fmt.Errorf("%w during the warm-up", ErrInterrupted)
	case r.Requests > 0 && r.Errors == r.Requests:
		s.warn(fmt.Sprintf("every warm-up request failed (%s)", report.MainErrorKind(r)))
	}
	return nil
}

// Measure is the measure stage of a run: the measured window, the load
// with the profiles and samplers over it.
func (s *Session) Measure(ctx context.Context) error {
	s.env = s.serviceEnv()
	s.startKernel()
	defer s.kern.Close()
	s.prof.Before(ctx)
	if ctx.Err() != nil {
		return fmt.Errorf("%w before the measured window (while taking the first profile snapshots)", ErrInterrupted)
	}
	window := s.windowLength()
	s.cfg.Log("measuring for " + units.FormatDuration(window.Round(time.Millisecond)))
	profDone := s.prof.During(ctx, window)
	stopPeers := s.watchPeers()
	finishStuck := s.watchStuck(ctx)
	s.prof.WindowStarts()
	s.kern.Begin()
	r, a, err := s.runLoad(ctx, s.cfg.Load)
	s.kern.End()
	s.prof.WindowEnds()
	stopPeers()
	s.mu.Lock() // captures still running read these in addProfile
	if a != nil {
		s.prof.SetWindow(a.Started(), a.Started().Add(time.Duration(r.DurationS*float64(time.Second))))
	}
	s.run.Load = r
	s.mu.Unlock()
	if err != nil && a == nil {
		return err
	}
	finishStuck(r, err != nil)
	fin, cancel := s.finishing(ctx)
	defer cancel()
	if ctx.Err() != nil || err != nil {
		s.prof.Abandon()
	}
	<-profDone
	s.prof.After(fin)
	switch {
	case err != nil:
		return s.errExited("the measured window")
	case ctx.Err() != nil:
		return fmt.Errorf("%w: the run covers what completed before Ctrl-C", ErrInterrupted)
	case r.Requests == 0 && r.Unfinished > 0:
		return fmt.Errorf("%w in the window: %d were still in flight at its end, the oldest for %s (the service does not answer)",
			errNoRequestFinished, r.Unfinished, units.FormatMs(r.UnfinishedOldestMs))
	case r.Requests > 0 && r.Errors == r.Requests:
		return fmt.Errorf("%w in the window: all %d failed (%s)", errNoRequestSucceeded, r.Requests, report.MainErrorKind(r))
	case 2*r.Errors > r.Requests:
		s.degrade(runfmt.Degradation{Why: runfmt.DegradeRequestsFailed})
	case r.Unfinished*100 > r.Requests:
		s.warn(fmt.Sprintf("%d requests (%s of those that finished) were still in flight when the window ended, the oldest for %s: the latency figures leave them out",
			r.Unfinished, units.FormatPct(100*float64(r.Unfinished)/float64(r.Requests)), units.FormatMs(r.UnfinishedOldestMs)))
	}
	return nil
}

// finishing is the context of the work after the window (the last profile
// snapshots): it outlives ctx's cancellation, by Config.SnapshotTimeout at
// most, and ends at once when the user hurries (a second Ctrl-C).
func (s *Session) finishing(ctx context.Context) (context.Context, context.CancelFunc) {
	h, stop := Hurried(ctx, s.cfg.Hurry)
	fin, cancel := context.WithTimeout(h, s.cfg.SnapshotTimeout)
	return fin, func() { cancel(); stop() }
}

func (s *Session) windowLength() time.Duration {
	l := s.cfg.Load
	if len(l.Stages) > 0 {
		return load.NewSchedule(l.Rate, l.Stages, 0).Duration()
	}
	if l.Duration > 0 {
		return l.Duration
	}
	return 10 * time.Second
}

// Hurried is the context of one run of an experiment: the user's first
// Ctrl-C (ctx) lets it finish, a second one (hurry) interrupts it.
func Hurried(ctx context.Context, hurry <-chan struct{}) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if hurry != nil {
		go func() {
			select {
			case <-hurry:
				cancel()
			case <-rctx.Done():
			}
		}()
	}
	return rctx, cancel
}
