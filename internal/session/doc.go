// Package session is one run of a service while it happens, and the
// stages of it that touch the service: prepare (New: the run's directory
// and record), start or attach (Start: launched in its cgroup, attached by
// pid or cgroup, or reached by URL alone, until it answers), warm (Warm:
// the warm-up's load, then the profilers picked), measure (Measure: the
// window's load with the profiles, the samplers of package window and the
// stuck watch of package stuck over it; ProfileOnly without load), collect
// (Collect: what was measured, for package decide), save (Save: run.json)
// and render (Render: report.html). Package lab says their order.
//
// Whatever happens — the service fails to start, crashes mid-run, a profile
// endpoint is missing, the user presses Ctrl-C — the run directory is written,
// as "partial" with the reason when the run could not complete (Status).
//
// # Trust
//
// A run measures the machine beside the service for its whole length
// (service.MachineSampler) and judges each measured window (run.json's
// quality: clean or noisy, with who else used the CPUs). It profiles only a
// pprof endpoint it has proved to be the service's (the listening socket's
// owner, or its cmdline); a CPU profile that fails makes the run "degraded",
// and a service that exits before perflab stops it makes it "partial"
// (ServiceExitError). --service-cpus and --load-cpus put the service and
// perflab itself on CPUs of their own.
package session
