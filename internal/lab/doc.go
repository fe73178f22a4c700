// Package lab orchestrates perflab's experiments: it launches or attaches to
// the service (package target), waits until it is ready, warms it up, drives
// the measured load (package load) while sampling the service's CPU and memory
// and capturing its profiles (package capture), then turns all of it into a
// run record (package runfmt) with the per-request costs and findings
// (package analysis), stored in a run directory (package store).
//
// Whatever happens — the service fails to start, crashes mid-run, a profile
// endpoint is missing, the user presses Ctrl-C — the run directory is written,
// as "partial" with the reason when the run could not complete.
package lab
