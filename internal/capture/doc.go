// Package capture takes profiles of a running service and reads its Go GC
// trace. Every profile comes back as a *profile.Profile from
// github.com/google/pprof/profile, which the caller writes as .pb.gz so that
// `go tool pprof`, Pyroscope, Parca and speedscope open it.
//
// # Sources
//
//   - Go services: [Client] fetches the net/http/pprof endpoints (CPU, heap,
//     allocs, goroutine, mutex, block, execution trace). Requests that last
//     N seconds time out after max(1.5×N, N+5s) (pprof's is 1.5×N: a
//     starved service answers late), and errors name the URL and show the
//     server's X-Go-Pprof message.
//   - Any process: [PerfRecord] runs `perf record -e cpu-clock` and
//     [ParsePerfScript] turns `perf script` text into a profile. JIT frames
//     named in /tmp/perf-PID.map files come through with their names.
//   - Python and Ruby: [RecordSpy] runs a profiler that reads a process's
//     stacks (py-spy, rbspy: their command lines are package profiling's)
//     when it is installed; [ParseCollapsed] reads collapsed stacks,
//     [ParseRbspyRaw] rbspy's raw recording; [StartPySpyIdle] records a
//     Python process's idle threads too.
//
// # GC trace
//
// [ParseGCLine] reads one GODEBUG=gctrace=1 line; [GCTrace] collects the
// lines a service prints and summarises a time window as a runfmt.GCSummary.
//
// # Errors
//
// Errors wrap sentinels a caller can test with errors.Is: [ErrNoEndpoint]
// (no pprof endpoint there), [ErrTimeout], [ErrToolMissing] (perf, py-spy or
// rbspy not installed), [ErrNotPermitted] and [ErrProcessGone].
package capture
