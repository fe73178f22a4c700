package profiling

import (
	"os/exec"
	"slices"
	"time"

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
	v8{},
	asyncProfiler{},
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

// rate is the rate pr samples a window of w at: perfHz when set (it sets
// every profiler's, --perf-hz), else pr's own default.
func rate(pr Profiler, perfHz int, w time.Duration) int {
	if perfHz > 0 {
		return perfHz
	}
	return pr.Rate(w)
}

// installed says whether the profiler named name can run: a locator says
// so itself, any other is a binary on PATH.
func installed(name string) error {
	if pr, ok := find(runfmt.Profiler(name)); ok {
		if l, ok := pr.(locator); ok {
			return l.locate()
		}
	}
	_, err := exec.LookPath(name)
	return err
}
