// Package lab orchestrates perflab's experiments: it launches or attaches to
// the service (package target), waits until it is ready, warms it up, drives
// the measured load (package load) while sampling the service's CPU and memory
// and capturing its profiles (package profiling, which picks the profilers
// and runs them through package capture), then turns all of it into a
// run record (package runfmt) with the per-request costs and findings
// (package analysis), stored in a run directory (package store).
//
// Whatever happens — the service fails to start, crashes mid-run, a profile
// endpoint is missing, the user presses Ctrl-C — the run directory is written,
// as "partial" with the reason when the run could not complete.
//
// # Trust
//
// A run measures the machine beside the service for its whole length
// (target.MachineSampler) and judges each measured window (run.json's
// quality: clean or noisy, with who else used the CPUs). It profiles only a
// pprof endpoint it has proved to be the service's (the listening socket's
// owner, or its cmdline); a CPU profile that fails makes the run "degraded",
// and a service that exits before perflab stops it makes it "partial"
// (ServiceExitError). --service-cpus and --load-cpus put the service and
// perflab itself on CPUs of their own.
package lab
