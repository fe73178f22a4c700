package runfmt

// ProfileType is what a saved profile holds: run.json's profiles[].type,
// and the name of its file under the run's profiles/ directory.
type ProfileType string

// The profile types a run saves.
const (
	// ProfileCPU is the CPU time of the window by stack (the pprof
	// endpoint's profile, perf, py-spy or rbspy).
	ProfileCPU ProfileType = "cpu"
	// ProfileAllocs is the window's allocations: the difference of two
	// allocs profiles of a Go service, at its edges.
	ProfileAllocs ProfileType = "allocs"
	// ProfileHeap is the live heap after a collection at the window's end;
	// ProfileHeapStart the same at its start.
	ProfileHeap      ProfileType = "heap"
	ProfileHeapStart ProfileType = "heap-start"
	// ProfileGoroutine is the goroutines at the window's end;
	// ProfileGoroutineStart at its start.
	ProfileGoroutine      ProfileType = "goroutine"
	ProfileGoroutineStart ProfileType = "goroutine-start"
	// ProfileMutex and ProfileBlock are the Go runtime's contention
	// profiles, when the service enables them.
	ProfileMutex ProfileType = "mutex"
	ProfileBlock ProfileType = "block"
	// ProfileTrace is a Go execution trace (profiles/trace.out, not a
	// pprof profile).
	ProfileTrace ProfileType = "trace"
	// ProfileWall is the request goroutines' or threads' wall time by
	// stack: sample types WallSample, OffCPUSample and one per TimeKind,
	// each sample labelled with its Wait (WaitLabel).
	ProfileWall ProfileType = "wall"
	// ProfileIdle is a wall-clock sampler's stacks of every thread, idle
	// ones included (py-spy --idle): what ProfileWall is made from.
	ProfileIdle ProfileType = "idle"
	// ProfileOffCPU is a native service's threads off a CPU, from the
	// kernel's scheduler events (TimeSourcePerfSched), in ProfileWall's
	// sample types.
	ProfileOffCPU ProfileType = "offcpu"
)

// ProfileTypes lists the profile types.
var ProfileTypes = newVocabulary("profile type",
	ProfileCPU, ProfileAllocs, ProfileHeap, ProfileHeapStart, ProfileGoroutine, ProfileGoroutineStart,
	ProfileMutex, ProfileBlock, ProfileTrace, ProfileWall, ProfileIdle, ProfileOffCPU,
)

// UnmarshalText reads a profile type's name, refusing one it does not know.
func (t *ProfileType) UnmarshalText(b []byte) error { return ProfileTypes.unmarshal(t, b) }

// CPUSample is the sample type (in nanoseconds) of the CPU time in a CPU
// profile, as runtime/pprof and perflab's samplers write it.
const CPUSample = "cpu"

// SampleCount and SampleCountUnit are the sample type and unit that count
// a CPU profile's samples, as runtime/pprof and perflab's samplers write
// them.
const (
	SampleCount     = "samples"
	SampleCountUnit = "count"
)

// SavedProfile is the run's saved profile of type t, if it saved one.
func (r *Run) SavedProfile(t ProfileType) (ProfileRef, bool) {
	for _, p := range r.Profiles {
		if p.Type == t {
			return p, true
		}
	}
	return ProfileRef{}, false
}
