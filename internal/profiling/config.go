package profiling

import (
	"context"
	"net/url"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// Choice is how the service is to be profiled (--profiler): with one
// profiler of the run's Registry (Choice(runfmt.ProfilerPerf)), or as one
// of the choices below.
type Choice string

// The choices besides a profiler.
const (
	// Auto is the service's pprof endpoint if it has one, else per
	// process by its runtime, the profiler the Registry has for it:
	// py-spy, rbspy, V8's, async-profiler, perf for the others.
	Auto Choice = "auto"
	// None takes no profiles.
	None Choice = "none"
)

// Profiler is the profiler chosen; false for auto and none.
func (c Choice) Profiler() (runfmt.Profiler, bool) {
	if c == Auto || c == None {
		return "", false
	}
	p, err := runfmt.Profilers.Parse(string(c))
	return p, err == nil
}

// Config says how a run's profiles are taken.
type Config struct {
	Choice Choice
	// Profilers are the profilers the run may use; nil is perflab's own
	// (Default).
	Profilers *Registry
	// Pprof is the service's net/http/pprof base URL; "" probes the load
	// URL's host (LoadURL) and Guess.
	Pprof   string
	LoadURL *url.URL
	// Guess is the endpoint tried when the load URL's host serves none;
	// "" is net/http/pprof's customary http://127.0.0.1:6060.
	Guess string
	// Force profiles an explicit Pprof endpoint that is not the service's.
	Force bool
	// PerfHz is the sampling rate of every profiler perflab starts; 0
	// leaves each at its default (Profiler.Rate).
	PerfHz int
	// Trace records the whole window's waits (by default a slice of it);
	// NoTrace records none.
	Trace, NoTrace bool
	// SnapshotTimeout bounds the snapshots taken before the window and
	// after it (each set in all).
	SnapshotTimeout time.Duration
	// Log receives one-line status messages for the user.
	Log func(string)
	// Src is the project's directory (--src) and UserCode the
	// --user-code pattern: what the stacks of a profile perf recorded
	// must reach (see Set.Stacks); "" for the defaults.
	Src, UserCode string
}

// Host is what profiling needs of the run it serves. Its methods may be
// called from the recorders' goroutines.
type Host interface {
	// Warn records a warning in the run.
	Warn(msg string)
	// Degrade records a profile the run needed and does not have.
	Degrade(d runfmt.Degradation)
	// AddProfile lists a profile saved in the run directory.
	AddProfile(ref runfmt.ProfileRef)
	// Dir is the run directory.
	Dir() string
	// Service is the launched or attached service; nil when perflab
	// knows only its URL.
	Service() *service.Process
	// ServicePIDs are the service's processes: Service's, else the
	// process listening on the load URL and its children, else none.
	ServicePIDs(ctx context.Context) []int
}
