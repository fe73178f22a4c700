package ownership

import (
	"strings"

	"github.com/google/pprof/profile"
)

// Measuring. perflab measures a Go service through the service's own
// net/http/pprof endpoint, so the service does the measuring's work: a
// handler goroutine per profile request, runtime/pprof writing each
// profile (its profile builder, and gzip and flate under it), the CPU
// profile's writer goroutine, runtime/trace streaming the execution
// trace, the runtime's tracer writing events on every goroutine while it
// runs, and the runtime recording a goroutine profile. None of it is the
// service's work: a stack with a frame of it anywhere is measuring,
// whatever its leaf, so that compress/flate.NewWriter under
// runtime/pprof.(*profileBuilder).build is measuring and the same
// function under the user's gzip middleware is not.
//
// What a service calls for itself is not: runtime/pprof's labels (Do and
// ForLabels run the service's code under them) and its custom profiles,
// runtime/trace's tasks, regions and logs (WithRegion runs the service's
// code), and the runtime's checks whether tracing is on, which run
// whether or not it is. A service that profiles or traces itself (a
// continuous profiler's agent calling StartCPUProfile, a flight
// recorder) does the same work as perflab's requests, and it is counted
// with them.

// goPprofService are runtime/pprof's functions that a service calls for
// itself: labels and custom profiles (names without the package, closures
// and wrappers cut off).
var goPprofService = map[string]bool{
	"Do": true, "ForLabels": true, "WithLabels": true, "Labels": true, "Label": true, "SetGoroutineLabels": true,
	"labelValue": true, "mergeLabelSets": true, "(*labelMap).String": true,
	"runtime_setProfLabel": true, "runtime_getProfLabel": true,
	"NewProfile": true, "Lookup": true, "Profiles": true, "lockProfiles": true, "unlockProfiles": true,
	"(*Profile).Name": true, "(*Profile).Count": true, "(*Profile).Add": true, "(*Profile).Remove": true,
	"(*profMap).lookup": true,
}

// goTraceService are runtime/trace's functions that a service calls for
// itself: tasks, regions and logs.
var goTraceService = map[string]bool{
	"NewTask": true, "fromContext": true, "(*Task).End": true, "newID": true, "Log": true, "Logf": true,
	"WithRegion": true, "StartRegion": true, "(*Region).End": true, "IsEnabled": true,
	"userTaskCreate": true, "userTaskEnd": true, "userRegion": true, "userLog": true,
}

// goRuntimeMeasuring start the names of the runtime's functions that run
// only to profile or trace: the tracer, the goroutine profile's
// recording, and the functions runtime/pprof reaches the runtime through.
var goRuntimeMeasuring = []string{
	"runtime.trace", "runtime.(*trace", "runtime.ReadTrace", "runtime.readTrace", "runtime.StartTrace", "runtime.StopTrace",
	"runtime.pprof_", "runtime.goroutineProfileWithLabels", "runtime.tryRecordGoroutineProfile", "runtime.doRecordGoroutineProfile",
}

// goRuntimeNotMeasuring are the runtime's functions that start like the
// tracer's but are not its work: stack unwinding (traceback, run on a
// panic and by every profiler), the checks whether tracing is on, and the
// tracer's user annotations (the service's).
var goRuntimeNotMeasuring = []string{
	"runtime.traceback", "runtime.traceEnabled", "runtime.traceShuttingDown", "runtime.traceAllocFreeEnabled",
	"runtime.tracefpunwindoff", "runtime.trace_user",
}

// IsGoMeasuring reports whether the Go function name is measuring's (see
// above): any function of net/http/pprof; runtime/pprof's and
// runtime/trace's but for the APIs a service calls for itself; the
// runtime's tracer and goroutine-profile recording. A stack with such a
// frame is measuring.
func IsGoMeasuring(name string) bool {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i] // a generic instantiation's type arguments
	}
	switch {
	case strings.HasPrefix(name, "net/http/pprof."):
		return true
	case strings.HasPrefix(name, "runtime/pprof."):
		return !goPprofService[goFuncBase(name[len("runtime/pprof."):])]
	case strings.HasPrefix(name, "runtime/trace."):
		return !goTraceService[goFuncBase(name[len("runtime/trace."):])]
	case strings.HasPrefix(name, "runtime."):
		return hasAnyPrefix(name, goRuntimeMeasuring) && !hasAnyPrefix(name, goRuntimeNotMeasuring)
	}
	return false
}

// goFuncBase cuts a Go function's closures, ABI wrappers and method
// values off ("Do.func1" and "Do.abi0" are "Do", "(*T).M-fm" is
// "(*T).M").
func goFuncBase(fn string) string {
	fn = strings.TrimSuffix(fn, "-fm")
	for {
		i := strings.LastIndexByte(fn, '.')
		if i <= 0 || !closureSuffix(fn[i+1:]) {
			return fn
		}
		fn = fn[:i]
	}
}

// closureSuffix reports whether the last element of a Go function name is
// one the compiler adds: "func2", "gowrap1", "deferwrap1", "abi0", or the
// number of a nested closure ("func1.2").
func closureSuffix(s string) bool {
	for _, p := range []string{"func", "gowrap", "deferwrap", "abi"} {
		if rest, ok := strings.CutPrefix(s, p); ok && isDigits(rest) {
			return true
		}
	}
	return isDigits(s)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Measuring reports whether the frame c classifies is measuring's (see
// IsGoMeasuring): a stack with one is measuring.
func (c Class) Measuring() bool { return c.mark&markMeasuring != 0 }

// MeasuringStack reports whether a stack (leaf first, indexes into
// classes as for ChargeStack) is measuring: a frame of it is.
func MeasuringStack[I Index](stack []I, classes []Class) bool {
	for _, f := range stack {
		if classes[f].mark&markMeasuring != 0 {
			return true
		}
	}
	return false
}

// Measuring reports whether the sample is measuring: a frame of its
// stack, inlined ones included, is.
func (c *Classified) Measuring(s *profile.Sample) bool {
	for _, loc := range s.Location {
		if c.info(loc).measuring {
			return true
		}
	}
	return false
}
