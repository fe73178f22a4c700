// Package answer decides what limits a run's service and ranks its
// findings by what fixing each would recover under that limit. It reads a
// run's record only (runfmt.Run: the time and CPU accounts, the budget,
// the machine, the findings) and writes the answer back into it, once, so
// every page renders the same list in the same order.
//
// # The limit
//
// The binding constraint is decided first (Limits): the CPU (the
// budget's quota used up or throttling, the host's cores, or the one
// thread per process of a single-threaded runtime), a wait that holds much
// of the latency (a downstream, a lock, a pool, a queue, the network, the
// load client), or none: the service has CPU to spare and its latency is
// its own. A second limit is named when another holds a notable share.
//
// # Causes before consequences
//
// On a saturated CPU, some waits exist only because the CPU is busy:
// runnable time, throttling, GC stops, waits for a lock or a goroutine
// whose holder waits for the CPU, queueing behind busy workers. Such a
// finding is marked as a consequence of the limit and ranks after the
// causes; its time is charged to the code that used the CPU, in
// proportion to that code's CPU (Payoff's latency).
//
// # The payoff
//
// Each finding carries what its fix would save (runfmt.Finding.Payoff):
// CPU per request (a CPU finding's own CPU and the garbage collection its
// allocations cause, charged by bytes), the throughput the CPU would then
// allow at the limit, and mean latency. perflab ab and compare print the
// payoff predicted on the base beside what was measured.
//
// # Doubts
//
// What the answer could not see is said (Doubts): a noisy machine, too
// few samples, no profile, a profile that over-counts, no time account.
// A page prints the doubts before the limit and ranks nothing as certain.
package answer
