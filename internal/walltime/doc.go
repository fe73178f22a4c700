// Package walltime reads Go execution traces (with golang.org/x/exp/trace,
// the parser the Go team maintains for Go 1.22+ traces) and tells where the
// wall time of the goroutines serving requests goes: running, runnable
// (waiting for a P: scheduler latency), blocked on the network, blocked on
// sync (mutex, channel, select, WaitGroup, Cond, pools), in system calls, in
// the garbage collector, or sleeping.
//
// # Which goroutines count
//
// Requests are served by net/http's connection goroutines
// (net/http.(*conn).serve), its HTTP/2 handler goroutines and gRPC's stream
// handlers, and by the goroutines those start (transitively), except the
// connection-lifetime loops net/http starts for itself (a connection's
// background reader, a client connection's read and write loops). A
// connection goroutine waiting for the next request on a keep-alive
// connection is idle, not serving: that wait is reported apart, as Idle.
// Time in goroutines a request starts adds to the request's, as CPU time
// does, so a handler that fans out shows more time than its latency.
//
// # Where each kind of time is charged
//
// A wait is charged to the stack at which the goroutine blocked; runnable
// time to the stack at which it will resume; running time to the CPU
// profile's samples of those goroutines when the trace carries them (a CPU
// profile was running while tracing), else to the stack at which the
// goroutine next stopped. Waits inside a call to another service (a net/http
// client round trip, a gRPC call) count as network even though the calling
// goroutine waits on a channel for the connection's reader; waits for a
// connection pool or semaphore count as sync and are labelled "pool".
//
// The result is an [Analysis]: the time per kind, its pprof profile (one
// sample type per kind, in nanoseconds, with a "wait" label naming the
// precise wait), P utilisation, stop-the-world time, GOMAXPROCS and
// goroutine counts.
package walltime
