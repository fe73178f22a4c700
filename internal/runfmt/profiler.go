package runfmt

import (
	"slices"
	"strings"
)

// Profiler is a profiler's name: the value of --profiler (besides its
// choices auto and none), of a process's profiler in run.json and of what
// recorded a saved profile. perflab's own profilers are the constants
// below; a profiler added to a registry of package profiling brings a
// name of its own, so a profiler's name is any well-formed word (see
// Profilers), not only these.
type Profiler string

// The profilers perflab has.
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

// Profilers lists perflab's own profilers; it reads any well-formed name
// besides (see wellFormedProfiler).
var Profilers = newVocabulary("profiler",
	ProfilerPprof, ProfilerPerf, ProfilerPySpy, ProfilerRbSpy, ProfilerV8, ProfilerAsyncProfiler,
).openTo(wellFormedProfiler)

// maxProfilerName bounds a profiler's name.
const maxProfilerName = 32

// wellFormedProfiler says whether s can name a profiler not among
// perflab's own: a lowercase letter, then lowercase letters, digits and
// '-', at most 32 bytes, and not a time source's word, which a profile's
// source would read as that time source.
func wellFormedProfiler(s string) bool {
	if s == "" || len(s) > maxProfilerName || s[0] < 'a' || s[0] > 'z' || TimeSources.Contains(TimeSource(s)) {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// UnmarshalText reads a profiler's name, refusing one that is not well
// formed.
func (p *Profiler) UnmarshalText(b []byte) error { return Profilers.unmarshal(p, b) }

// ProfilerSet is a set of profilers: those that sampled one profile (a
// service whose processes run different runtimes is sampled by one
// profiler per runtime). It holds their names in order, joined by "+"
// (a name has no "+"); the zero value is empty.
type ProfilerSet string

// NewProfilerSet is the set of ps.
func NewProfilerSet(ps ...Profiler) ProfilerSet {
	var s ProfilerSet
	for _, p := range ps {
		s = s.With(p)
	}
	return s
}

// With is s with p added (a word that names no profiler adds nothing).
func (s ProfilerSet) With(p Profiler) ProfilerSet {
	if _, err := Profilers.Parse(string(p)); err != nil || s.Has(p) {
		return s
	}
	names := append(s.List(), p)
	slices.Sort(names)
	return ProfilerSet(strings.Join(Words(names), "+"))
}

// Has says whether p is in s.
func (s ProfilerSet) Has(p Profiler) bool { return p != "" && slices.Contains(s.List(), p) }

// Len is the number of profilers in s.
func (s ProfilerSet) Len() int { return len(s.List()) }

// List is the profilers of s in the order of their names.
func (s ProfilerSet) List() []Profiler {
	if s == "" {
		return nil
	}
	var out []Profiler
	for name := range strings.SplitSeq(string(s), "+") {
		out = append(out, Profiler(name))
	}
	return out
}

// String is the profilers' names in order joined by "+" ("perf+py-spy").
func (s ProfilerSet) String() string { return string(s) }
