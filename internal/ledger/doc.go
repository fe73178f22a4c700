// Package ledger builds a run's request ledger (runfmt.Ledger) from what
// the run measured: the client's latency, the machine's quality, the
// service's CPU and throttling, the kernel's timing of its threads and
// sockets, the runtime's own split of a request's time (a Go execution
// trace, py-spy's or rbspy's idle stacks), the local processes behind its
// peers and its CPU profile. It is pure: lab gathers the inputs (Input),
// Build returns the ledger.
//
// # Who owns a millisecond
//
// The time account splits the client's mean latency L. Each source
// proposes parts in milliseconds per request; the parts then claim L in a
// fixed priority, each at most what is left, so that every millisecond is
// owned once and the sum never exceeds L; a part that had to be cut says
// so in its note, and what no part claims is unexplained. The priority
// goes from what is measured per request, at its own boundary, to what is
// derived:
//
//  1. generator: the load client's send lag (open model);
//  2. downstream, per peer: the kernel's answer time (the service's last
//     send to the answer's first bytes). With a Go trace, whose downstream
//     wait also holds the service's own delay once the answer arrived,
//     the peers have at least the kernel's answer times and the service
//     at least the answers' waits to be read and the time its client
//     connections' goroutines ran or waited for a P; what neither explains
//     (more of the service's delay, or calls overlapping on a shared
//     HTTP/2 or gRPC connection, which the kernel times as one) is shared
//     by how busy the service's Ps or CPU budget were. The service's share
//     is runnable;
//  3. network: the kernel's send stalls on the load's ports (Nagle waiting
//     for the client's delayed ACK, full windows), and a Go trace's or
//     py-spy's waits on the request's own connection; without the kernel,
//     the client's time from headers to body;
//  4. accept: the kernel's accept backlog on the load's ports;
//  5. queue: the kernel's wait to be read of requests and, for runtimes
//     without a trace, of the peers' answers, less what of it was the
//     service waiting for a CPU (a woken reader's run-queue wait, the
//     kernel's mean once per read; a goroutine's wait for a P), which is
//     runnable;
//  6. cpu: the measured CPU per request (cgroup or /proc); with a Go trace,
//     the request goroutines' running time up to that;
//  7. gc, lock, pool, sleep, syscall: the runtime's split (Go trace,
//     py-spy, rbspy); sleep from the kernel for runtimes that sleep
//     threads (not Go: its runtime sleeps its own threads), with a
//     sampler of every thread (py-spy's idle stacks) the share of it the
//     threads serving requests slept;
//  8. disk: the kernel's uninterruptible waits (inside a Go trace's
//     syscall time, which keeps the rest);
//  9. throttled and runnable: the time waiting for a CPU (a Go trace's
//     runnable and running beyond the CPU, the waits to be read spent
//     waiting for a CPU, the service's share of its downstream waits;
//     else py-spy's, or the kernel's runnable time of the threads), split
//     by the cgroup's throttled time over the threads' run-queue wait;
//  10. the generator's own wait for a CPU: all of perflab's threads'
//     run-queue wait, charged to the requests in flight per core (a load
//     runs an event loop per core; one waiting for a CPU delays all its
//     requests), an upper bound, so it claims last.
//
// A part that was not measured has no milliseconds and says why.
package ledger
