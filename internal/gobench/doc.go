// Package gobench runs Go benchmarks the way benchstat wants them and says
// where their cost goes. For each package it builds the test binary once
// (go test -c), runs it with -benchmem a number of times (-count, or one
// run per repetition interleaved with another revision's binary), parses
// the output with golang.org/x/perf/benchfmt into typed results, and
// summarises each benchmark's units with benchmath's median and 95%
// confidence interval (package stats). Each benchmark's CPU and allocation
// profiles are then taken in runs of their own, so profiling never
// distorts the timed figures, and the user's source lines that burn CPU
// and allocate are read from them (package analysis).
//
// # Profiles
//
// The CPU profile covers -benchtime Nx, N being a quarter of the median b.N
// of the timed runs, but at least 100 ms of work (10 samples at 100 Hz)
// and at most a whole timed run: at -count 6 the CPU profiles add about 4%
// to the timed runs rather than a sixth. Its method says how many samples
// it holds. The allocation profile
// is recorded with -memprofilerate=1: every allocation is recorded, so a
// line's bytes and allocations per iteration are counts, not estimates
// from a sample every 512 KiB (a benchmark that allocates 53 bytes per
// iteration would be sampled once in ten thousand). Recording every
// allocation slows allocating code many times over, which is why it runs
// apart from the timed runs and for at most maxRecorded allocations. It is
// taken twice, at k and 2k iterations, and the per-iteration figures are
// the difference divided by k: what the benchmark allocates before its
// loop (setup, b.ResetTimer) cancels out, as it does in B/op.
//
// # Timeout
//
// The testing package applies -test.timeout to tests only: a benchmark
// that never ends runs for good under go test -bench. perflab stops a test
// binary that runs past --timeout itself (SIGQUIT, then SIGKILL), names the
// benchmark it was in from the goroutine stacks the Go runtime prints on
// SIGQUIT, and keeps the results before it in a partial run. Every process
// perflab bench starts dies with it, kill -9 included (see childOf).
//
// # User code
//
// The user's code is the benchmark's module: its functions, those of the
// module's other packages and of the package's external tests. Library
// and runtime frames are charged to the nearest user line that called
// them (analysis's attribution), so "bytes.NewBuffer allocates 48 B" reads
// as the line of the user's that called it.
package gobench
