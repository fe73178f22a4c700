package runfmt

// TimeSource is what a request's wall time was split from (run.json's
// time_per_request.source): a recording of the service's threads or
// goroutines that tells running from waiting, and waiting for what.
type TimeSource string

// The time sources.
const (
	// TimeSourceGoTrace is a Go execution trace, taken through the
	// service's net/http/pprof endpoint.
	TimeSourceGoTrace TimeSource = "go-trace"
	// TimeSourcePySpy is py-spy's samples of the request threads, idle
	// ones included (py-spy --idle).
	TimeSourcePySpy = TimeSource(ProfilerPySpy)
	// TimeSourceRbSpy is rbspy's samples of the request threads.
	TimeSourceRbSpy = TimeSource(ProfilerRbSpy)
	// TimeSourcePerfSched is the kernel's scheduler events, recorded by
	// perf, of a native service's threads: where they left a CPU, not
	// which request they served.
	TimeSourcePerfSched TimeSource = "perf-sched"
)

// TimeSources lists the time sources.
var TimeSources = newVocabulary("time source", TimeSourceGoTrace, TimeSourcePySpy, TimeSourceRbSpy, TimeSourcePerfSched)

// Profiler is the profiler that records the time source.
func (t TimeSource) Profiler() Profiler {
	switch t {
	case TimeSourceGoTrace:
		return ProfilerPprof
	case TimeSourcePerfSched:
		return ProfilerPerf
	}
	return Profiler(t) // a wall-clock sampler is its own source
}

// UnmarshalText reads a time source's name, refusing one it does not know.
func (t *TimeSource) UnmarshalText(b []byte) error { return TimeSources.unmarshal(t, b) }
