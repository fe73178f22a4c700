// Package stuck takes the stuck snapshot of a run: when requests stop
// finishing in the measured window, it reads every thread's stack in the
// service's processes (see Config.readStacks), as one would send a hung
// Go service SIGQUIT or run py-spy dump on a hung Python one, and groups
// them by where they wait; the decide stage puts the biggest group at
// the top of the verdict. It is taken once per run: during the window,
// when no request has finished for a while with some in flight, or at
// its end, when the window ends with more requests unfinished than
// finished. A stall is counted only while perflab itself was looking
// (stallClock), and one during which the service's threads mostly waited
// for a CPU is a busy machine, said in a warning, not a hang (starved).
// It takes at most Config.SnapshotTimeout; one that times out says so,
// keeps what it read, and the run is written as ever.
package stuck
