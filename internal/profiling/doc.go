// Package profiling is perflab's profiling strategy: which profiler
// samples a service, how its recorders are started ahead of the measured
// window and stopped at its end, what they cost, and where their profiles
// go. Package lab orchestrates a run and hands its Set a Host (the run's
// warnings, its directory, its list of profiles and the service's
// processes); package capture runs the tools and reads what they write.
//
// # Profilers
//
// A profiler is one descriptor, a Profiler value: its name (a word of
// runfmt's Profiler), install hint, the runtimes it serves, its default
// rate, what it can give besides a CPU profile (Gives: waits, stuck
// stacks, source lines) and how it samples (Sampling: through the
// service's endpoint, from inside the service, at every tick of wall
// time, following children, several processes at once, saying when it
// samples), all as fields; and its behaviours behind Recorder (Record),
// with the small interfaces of what it gives besides (Snapshotter; a
// wait recording and an endpoint's snapshots for this package's own).
// Each of perflab's profilers is a file of its own (pyspy.go: the
// descriptor pySpy and its pySpyRecorder) and a row of the default
// Registry (registry.go); package capture reads its format. A run may be
// given another Registry (Config.Profilers), such as Default().With(p)
// with a profiler of its own. The strategy picks from the registry by
// runtime and by the descriptors' fields, never by a profiler's name.
//
// # Processes
//
// A service profiled through its processes (no pprof endpoint) is sampled
// process by process, each with the registry's profiler for its runtime
// (one that names the runtime before perf, which serves all), by a tree
// sampler that also follows the processes the service forks during the
// window, watches those that stayed idle through the warm-up instead of
// sampling them, and merges the recordings into one profile with pid and
// comm labels.
package profiling
