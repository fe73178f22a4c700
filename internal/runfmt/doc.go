// Package runfmt is perflab's data model: the versioned records a run leaves
// behind (run.json), the result of a load (what `perflab load --json` prints),
// the per-second time series, and the summaries of the target, its profiles,
// its garbage collector and the findings. It imports the standard library and
// perflab's file access (package files) only, so every other package can share
// these types.
//
// # Compatibility
//
// Fields are added, never renamed. SchemaVersion is raised when a change would
// make an older reader misread a newer file; Read refuses files newer than it
// knows. The exceptions, keys renamed to say what they hold (the heap sizes
// in MiB that were keyed *_mb; the words of schema 4 and older, now under
// keys ending in note), are still read under their old names (mib.go,
// oldkeys.go).
//
// # Vocabularies
//
// The words run.json holds for one concept form a closed vocabulary: a
// string type declared once, in a file of its own that documents each
// word, with one Vocabulary value that lists the words (the list below is
// checked against those values). Every other package uses the words by
// their constants. Read refuses a word its vocabulary does not know and
// names its field (FieldError); the empty word reads as not set.
//
//   - Profiler (profiler.go): pprof, perf, py-spy, rbspy, v8, async-profiler.
//     In profiles[].source, profiling.processes[].profiler and
//     profiling.profilers[].tool. These are perflab's own profilers; a
//     profiler registered with package profiling has a name of its own,
//     and any well-formed name reads.
//   - ProfilerRole (profilerrole.go): cpu, off-cpu.
//     In profiling.profilers[].role.
//   - ProfileType (profiletype.go): cpu, allocs, heap, heap-start, goroutine,
//     goroutine-start, mutex, block, trace, wall, idle, offcpu.
//     In profiles[].type; a profile's file is profiles/TYPE.pb.gz
//     (profiles/trace.out for the trace).
//   - TimeSource (timesource.go): go-trace, py-spy, rbspy, perf-sched.
//     In time_per_request.source.
//   - ProfileSource (profilesource.go): a profiler's or a time source's name,
//     or a list of profilers' names.
//     In profiles[].source.
//   - TimeKind (timekind.go): running, runnable, network, sync, syscall, gc,
//     sleep, other.
//     In time_per_request.kinds[].kind, and the sample types of a wall-time
//     profile after WallSample and OffCPUSample.
//   - Wait (wait.go): cpu, runnable, client, downstream, lock, channel,
//     waitgroup, cond, pool, sync, syscall, gc-assist, gc-wait, gc-stop,
//     sleep, other.
//     The keys of time_per_request.kinds[].waits, and the WaitLabel of a
//     wall-time profile's samples.
//   - Runtime (runtime.go): go, python, ruby, node, jvm, native.
//     In profiling.processes[].runtime.
//   - FindingKind (findingkind.go): cpu-bound, gc, formatting, encoding,
//     reflection, compression, regexp, hot-user-function, repeated-work,
//     constructor, off-cpu, cpu-contention, spin-wait, lock-contention, goroutine-growth,
//     downstream-wait, pool-wait, sync-wait, sleep, syscall-wait, client-io,
//     gc-pause, scheduler-latency, gomaxprocs, cpu-throttled, memory-growth,
//     stuck, serial, serial-phase, n-plus-one, start-up, out-of-memory, network-stall.
//     In findings[].kind.
//   - Figure (figure.go): alloc_bytes_per_s, answer_us, blocked_us,
//     bytes_per_request, collections, connections, cores_max, cores_mean,
//     count, cpu_limit_cores, cpu_s, cpu_us, cpu_us_per_request,
//     cpuset_cores, database_share, exclusive_cpu_us, explained_us,
//     finished_requests, gc_cycles, gc_stop_mean_us, gc_stop_us,
//     generator_runqueue_us, gomaxprocs, gomaxprocs_match, goroutines_added,
//     goroutines_end, goroutines_start, heap_bytes_per_s, heap_from_bytes,
//     heap_peak_bytes, heap_to_bytes, host_cores, import_share, in_flight,
//     kernel_wait_us, latency_us, library_share, live_end_bytes,
//     live_start_bytes, max_rps, memory_limit_bytes, nagle_connections,
//     objects_per_request, off_cpu_share, other_cores, other_wait_us,
//     own_share, p99_us, p_busy_share, peer_cpu_us, perflab_cores,
//     phase_from_s, phase_to_s, processes_started, profiled_over_measured,
//     queries_min, queries_per_request, requests_per_core, rss_peak_bytes,
//     runnable_us, runqueue_us, runqueue_wait_s, saved_s, saved_share,
//     sched_wait_us, service_cores, service_runqueue_us, share, stalled_us,
//     steal_cores, syscall_share, threads_max, threads_waiting, throttled_s,
//     throttled_share, timeline_step_us, traced_requests, traced_s,
//     traced_us, unexplained_us, usable_cores, wait_total_us,
//     wait_us_per_request, wall_s.
//     The keys of findings[].figures and of its evidence.functions[].figures;
//     each has one Measure.
//   - Setting (setting.go): source, gogc, gomaxprocs_source,
//     gomaxprocs_env, profile, wait_method, lock_profiles, runtime,
//     database, cost, server.
//     The keys of findings[].settings.
//   - Role (role.go): culprit, entry, callee, library, path, site, holder,
//     allocator, library-function.
//     In findings[].evidence.functions[].role.
//   - Advice (advice.go): cheaper-or-more-cpu, allocate-less,
//     build-strings, reuse-encoders, cache-rendered, compress-less,
//     cache-reads, compile-once, avoid-reflect, cache-or-callees,
//     start-here, build-once, check-locks, check-workers, check-event-loop,
//     check-threads, lower-gomaxprocs, fewer-workers, fewer-processes,
//     shrink-pools, shard-locks, shorten-locks, fix-leak,
//     call-concurrently, size-pool, wait-less, remove-sleep,
//     avoid-syscalls, stream-bodies, heap-room, more-cpu,
//     fewer-threads-than-cores, match-gomaxprocs, threads-to-quota,
//     bound-growth, one-query, start-warm, import-early, free-pool-slots,
//     call-timeouts,
//     release-locks, end-retries, end-loops, unstall-gc, fan-out,
//     worker-pool,
//     measure-alone, larger-budget, more-memory, no-delay.
//     In findings[].advice.
//   - StackSource (stuck.go): pprof-goroutine, py-spy, rbspy, jcmd, kernel.
//     In stuck.processes[].source and stuck.groups[].source.
//   - LedgerPart (ledgerpart.go): generator, accept, queue, cpu, runnable,
//     throttled, gc, lock, pool, downstream, sleep, disk, syscall, network,
//     unexplained.
//     In ledger.time.rows[].part (unexplained is ledger.time.unexplained_ms).
//   - LedgerSource (ledgersource.go): go-trace, py-spy, rbspy, perf-sched,
//     kernel, cgroup, proc, load-client.
//     In ledger.time.rows[].sources.
//   - CPUOwner (cpuowner.go): user-code, gc, spin-wait, runtime, measuring.
//     In ledger.cpu.owners[].owner.
//   - MetricName (metrics.go): rps, p50, p90, p99, cpu_per_request,
//     allocs_per_request, gc_pct, rss_max, wall_time, cpu_time.
//     In a comparison's metrics[].name and thresholds[].metric, and in
//     --fail-on.
//   - ThreadState (threadstate.go): on-cpu, runnable, sleep, futex, disk,
//     network, other.
//     In batch.threads.states[].state.
//   - LimitKind (answer.go): cpu-budget, cpu-host, cpu-thread, downstream,
//     lock, pool, queue, network, client, none, stuck, unknown.
//     In answer.limits[].kind and findings[].consequence_of.
//   - DoubtKind (answer.go): noisy, few-samples, no-profile, over-counted,
//     no-time-split, no-cpu, unexplained, client.
//     In answer.doubts[].kind.
//   - NoiseCause (noisecause.go): other-processes, steal, generator-waited.
//     In quality.causes.
//   - RunFigure (runfigure.go): latency, throughput, find-max-rates,
//     cpu-per-request, allocations, profile-shares, wall-time, cores-busy,
//     cpu-time.
//     In quality.trusted and quality.distorted.
//   - DegradeKind (degradation.go): failed, timed-out, no-endpoint,
//     nothing-to-sample, no-samples, not-representative, over-budget,
//     requests-failed, interrupted.
//     In degradations[].why.
//   - PartialKind (partialkind.go): interrupted, service-exited,
//     exited-before-ready, not-ready, oom-killed, no-request-finished,
//     no-request-succeeded, stuck, not-saved, failed.
//     In partial_kind.
//   - ReachWhy (stackreach.go): shallow, runtime-only, unnamed,
//     not-user-code.
//     In profiling.stack_reach.why and profiles[].stacks.why.
//   - ReachFix (stackreach.go): unwind, naming, user-code.
//     In profiling.stack_reach.fix and profiles[].stacks.fix.
//   - CoverageHint (coverage.go): endpoint, few-samples, processes.
//     In profiling.unrepresentative.hint.
//   - StuckKind (stuckkind.go): no-request-finished,
//     window-ended-unfinished.
//     In stuck.kind.
//
// # Words
//
// run.json holds no sentence outside a key that ends in note, notes or
// text: what perflab knows is typed (the vocabularies above, figures), and
// package report makes the words when the run is shown. A note quotes
// what perflab cannot type (an error, a tool's answer) or keeps the words
// of a run written before schema 5 (oldkeys.go); no package reads a note
// to decide something (internal/archtest checks both).
package runfmt
