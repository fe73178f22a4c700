// Package profiling is perflab's profiling strategy: which profiler
// samples a service, how its recorders are started ahead of the measured
// window and stopped at its end, what they cost, and where their profiles
// go. Package lab orchestrates a run and hands its Set a Host (the run's
// warnings, its directory, its list of profiles and the service's
// processes); package capture runs the tools and reads what they write.
//
// # Profilers
//
// A profiler is one file: a type that implements Profiler (its name, the
// runtimes it serves, how to install it, its default rate, and Record),
// checked with `var _ Profiler = pySpy{}`, and a row of the table
// (table.go); its name is a word of runfmt's Profiler vocabulary. What
// only some profilers do is a small interface of its own, checked beside
// the method that gives it: following a process's children (follower),
// saying when they sample (readySignaller), recording several processes
// at once (groupRecorder), reading stacks at every tick of wall time
// (tickSampler), having something to say about a process
// (processNoter), recording where threads wait off a CPU beside the CPU
// profile (waitRecorder: py-spy --idle, perf sched, the Go execution
// trace), and sampling through the service's own endpoint, with its
// snapshots before and after the window (endpoint: net/http/pprof). The
// strategy picks from the table by runtime and by these capabilities,
// never by a profiler's name.
//
// # Processes
//
// A service profiled through its processes (no pprof endpoint) is sampled
// process by process, each with the first profiler of the table that
// serves its runtime (perf serves all), by a tree sampler that also
// follows the processes the service forks during the window, watches
// those that stayed idle through the warm-up instead of sampling them,
// and merges the recordings into one profile with pid and comm labels.
package profiling
