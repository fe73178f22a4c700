package session

import (
	"regexp"
	"time"

	"perflab/internal/decide"
	"perflab/internal/load"
	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/store"
)

// ProfilerChoice is how the service is to be profiled (--profiler): with
// one profiler of Config.Profilers (ProfilerChoice(runfmt.ProfilerPerf)),
// or as one of the choices below.
type ProfilerChoice = profiling.Choice

// The choices besides a profiler.
const (
	// ProfilerAuto is the service's pprof endpoint if it has one, else
	// per process by its runtime: py-spy, rbspy, perf for the others.
	ProfilerAuto = profiling.Auto
	// ProfilerNone takes no profiles.
	ProfilerNone = profiling.None
)

// Profilers are the names of perflab's own profilers, in the order the
// auto choice tries them: --profiler's words besides auto and none.
func Profilers() []runfmt.Profiler { return profiling.Default().Names() }

// Config describes one run.
type Config struct {
	Name  string
	Store store.Store
	// Load is the measured load; its Duration is the measured window.
	Load      load.Config
	LoadFlags map[string]string // the load's flags, recorded in run.json
	Warmup    time.Duration
	// SLO, if any, is checked against the measured window's load; the
	// result is in run.json's load.slo.
	SLO decide.SLO

	// The service: launched from Command, attached by PID, or neither (only
	// the load and what its pprof endpoint says).
	Command []string
	Env     []string
	Dir     string
	PID     int
	Budget  service.Budget
	// Cgroup attaches to every process of an existing cgroup (a path
	// under /sys/fs/cgroup or inside the tree).
	Cgroup string
	// LoadCPUs confines perflab itself (the load generator, samplers and
	// profilers) to these CPUs during the run; empty leaves it anywhere.
	LoadCPUs service.CPUSet

	ReadyURL     string
	ReadyTimeout time.Duration
	StopGrace    time.Duration
	// SnapshotTimeout bounds the profile snapshots taken before the window
	// and after it (each set in all; default 10s), whatever the endpoint
	// does: a hanging pprof endpoint costs the run at most that.
	SnapshotTimeout time.Duration

	// Pprof is the service's net/http/pprof base URL; "" probes the load
	// URL's host and 127.0.0.1:6060.
	Pprof string
	// Force profiles an explicit Pprof endpoint that is not the service's.
	Force    bool
	Profiler ProfilerChoice
	// Profilers are the profilers the run may use; nil is perflab's own
	// (profiling.Default). A profiler of one's own is added with
	// profiling.Default().With.
	Profilers *profiling.Registry
	// PerfHz is the sampling rate of every profiler perflab starts (perf,
	// py-spy, rbspy); 0 leaves each at its default (each profiler's Rate).
	PerfHz    int
	Trace     bool // trace the whole window (by default a slice of it is traced)
	NoTrace   bool // take no execution trace
	NoGCTrace bool // do not set GODEBUG=gctrace=1 on a launched service
	// NoPerfMap does not add --perf-basic-prof-only-functions to
	// NODE_OPTIONS of a launched service (node then shows no JS names),
	// nor -XX:+PreserveFramePointer to its JAVA_TOOL_OPTIONS (perf then
	// sees no callers of compiled Java methods).
	NoPerfMap bool

	// Src is the project root that decides what is user code when in
	// doubt; "" takes the launched script's or the service's directory.
	Src string
	// UserCode, when set, decides alone what is user code (--user-code).
	UserCode *regexp.Regexp

	// Revision, when set, is the git revision the service was built from
	// (ab --git): recorded in run.json, and as the environment's commit.
	Revision *runfmt.Revision

	// Version is perflab's version for run.json.
	Version string
	// Log receives one-line status messages for the user.
	Log func(string)
	// Watch, if set, is called when a load starts (for live progress) and
	// returns the function to call when it ends.
	Watch func(*load.Attacker) (done func())
	// Hurry, when closed (a second Ctrl-C), ends the waits that follow an
	// interruption: the service is killed at once, profile fetches still
	// under way are abandoned, and the run is written with what it has.
	// In AB and Sweep it also interrupts the run under way.
	Hurry <-chan struct{}
}

// Defaults fills in the settings left unset.
func (c *Config) Defaults() {
	if c.Warmup < 0 {
		c.Warmup = 0
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = 30 * time.Second
	}
	if c.StopGrace == 0 {
		c.StopGrace = 5 * time.Second
	}
	if c.SnapshotTimeout <= 0 {
		c.SnapshotTimeout = 10 * time.Second
	}
	if c.Profiler == "" {
		c.Profiler = ProfilerAuto
	}
	if c.Log == nil {
		c.Log = func(string) {}
	}
	if c.Name == "" {
		c.Name = "run"
	}
}
