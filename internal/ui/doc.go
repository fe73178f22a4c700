// Package ui is perflab's local web UI: the runs of a run directory in one
// table, each run's report, its profiles in pprof's own interactive views
// (graph, flame graph, top, source, peek), and comparisons of runs or groups
// with their differential flame graph. It serves on the loopback interface
// by default and reads only inside the run directory it was started on.
package ui
