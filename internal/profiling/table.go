package profiling

import (
	"slices"
	"time"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// profilers is the table perflab picks a profiler from: the service's
// pprof endpoint first, then, for a service sampled through its
// processes, the first row that serves a process's runtime. perf, which
// serves every runtime, comes last. Adding a profiler is a file of its
// own and a row here.
var profilers = []Profiler{
	pprofEndpoint{},
	pySpy{},
	rbSpy{},
	perf{},
}

// find returns the profiler named name, false for a name not in the table.
func find(name runfmt.Profiler) (Profiler, bool) {
	i := slices.IndexFunc(profilers, func(pr Profiler) bool { return pr.Name() == name })
	if i < 0 {
		return nil, false
	}
	return profilers[i], true
}

// endpointProfiler is the table's profiler that samples through the
// service's endpoint.
func endpointProfiler() endpoint {
	for _, pr := range profilers {
		if e, ok := pr.(endpoint); ok {
			return e
		}
	}
	return nil
}

// forRuntime is the first profiler of the table that samples processes
// (no endpoint) and names rt among its runtimes; else the first that
// serves every runtime.
func forRuntime(rt runfmt.Runtime) Profiler {
	var all Profiler
	for _, pr := range profilers {
		if _, ok := pr.(endpoint); ok {
			continue
		}
		switch {
		case pr.Runtimes() == nil && all == nil:
			all = pr
		case pr.Runtimes() != nil && serves(pr, rt):
			return pr
		}
	}
	return all
}

// forRuntimes is the profiler that samples a service whose processes run
// the runtimes rts: the table's first process profiler that names one of
// them, else the one that serves every runtime.
func forRuntimes(rts map[runfmt.Runtime]bool) Profiler {
	for _, pr := range profilers {
		if _, ok := pr.(endpoint); ok || pr.Runtimes() == nil {
			continue
		}
		for rt := range rts {
			if serves(pr, rt) {
				return pr
			}
		}
	}
	return forRuntime(runfmt.RuntimeNative)
}

// Rate is the rate pr samples a window of w at: perfHz when set (it sets
// every profiler's, --perf-hz), else pr's own default.
func Rate(pr Profiler, perfHz int, w time.Duration) int {
	if perfHz > 0 {
		return perfHz
	}
	return pr.Rate(w)
}

// tickRates are the default rates of the profilers that read stacks at
// every tick, slowest first: odd, out of step with periodic work at round
// frequencies.
var tickRates = []int{capture.DefaultSpyHz, 29, 49, 99}

// minTicks is how many ticks such a profiler takes at least over a window
// at its default rate: capture.DefaultSpyHz over perflab's
// default 10 s window. A shorter window is sampled faster, up to 99 Hz,
// so its profile still has enough samples to speak: the same ticks, and
// so about the same profiler CPU, per window.
const minTicks = 190

// tickRate is the default rate of a tickSampler over a window of w: the
// slowest of tickRates that takes minTicks ticks, as its cost does not
// follow the service's CPU (see capture.DefaultSpyHz).
func tickRate(w time.Duration) int {
	for _, hz := range tickRates {
		if float64(hz)*w.Seconds() >= minTicks {
			return hz
		}
	}
	return tickRates[len(tickRates)-1]
}
