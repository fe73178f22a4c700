package runfmt

import (
	"slices"
	"strings"
)

// Profiler is a profiler perflab runs to sample a service: the value of
// --profiler (besides its choices auto and none), of a process's profiler
// in run.json and of what recorded a saved profile.
type Profiler string

// The profilers.
const (
	// ProfilerPprof is the service's own net/http/pprof endpoint (Go).
	ProfilerPprof Profiler = "pprof"
	// ProfilerPerf is Linux perf (perf record -e cpu-clock): any native
	// or JIT-compiled process; also the name of its binary.
	ProfilerPerf Profiler = "perf"
	// ProfilerPySpy is py-spy, for Python processes; also its binary.
	ProfilerPySpy Profiler = "py-spy"
	// ProfilerRbSpy is rbspy, for Ruby processes; also its binary.
	ProfilerRbSpy Profiler = "rbspy"
	// ProfilerV8 is V8's CPU profiler, for node processes, through
	// node's inspector (no binary of its own).
	ProfilerV8 Profiler = "v8"
	// ProfilerAsyncProfiler is async-profiler, for JVMs: an agent loaded
	// into the JVM (through jcmd) that names interpreted and compiled Java
	// methods with their callers.
	ProfilerAsyncProfiler Profiler = "async-profiler"
)

var profilerWords = []Profiler{ProfilerPprof, ProfilerPerf, ProfilerPySpy, ProfilerRbSpy, ProfilerV8, ProfilerAsyncProfiler}

// Profilers lists the profilers.
func Profilers() []Profiler { return slices.Clone(profilerWords) }

// ParseProfiler returns the profiler named s, or an error naming s and the
// profilers.
func ParseProfiler(s string) (Profiler, error) { return parseWord("profiler", Profilers(), s) }

// String is the profiler's name.
func (p Profiler) String() string { return string(p) }

// UnmarshalText reads a profiler's name, refusing one it does not know.
func (p *Profiler) UnmarshalText(b []byte) error { return unmarshalWord(p, b, ParseProfiler) }

// ProfilerSet is a set of profilers: those that sampled one profile (a
// service whose processes run different runtimes is sampled by one
// profiler per runtime). The zero value is empty.
type ProfilerSet uint8

// NewProfilerSet is the set of ps.
func NewProfilerSet(ps ...Profiler) ProfilerSet {
	var s ProfilerSet
	for _, p := range ps {
		s = s.With(p)
	}
	return s
}

func profilerBit(p Profiler) ProfilerSet {
	if i := slices.Index(profilerWords, p); i >= 0 {
		return 1 << i
	}
	return 0
}

// With is s with p added (an unknown profiler adds nothing).
func (s ProfilerSet) With(p Profiler) ProfilerSet { return s | profilerBit(p) }

// Has says whether p is in s.
func (s ProfilerSet) Has(p Profiler) bool { return p != "" && s&profilerBit(p) != 0 }

// Len is the number of profilers in s.
func (s ProfilerSet) Len() int { return len(s.List()) }

// List is the profilers of s in the order of their names.
func (s ProfilerSet) List() []Profiler {
	var out []Profiler
	for _, p := range profilerWords {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// String is the profilers' names in order joined by "+" ("perf+py-spy").
func (s ProfilerSet) String() string {
	names := make([]string, 0, 4)
	for _, p := range s.List() {
		names = append(names, string(p))
	}
	return strings.Join(names, "+")
}
