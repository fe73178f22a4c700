// Package stats compares repeated perflab measurements the way benchstat does.
//
// It is opinionated like golang.org/x/perf/benchmath, which it wraps: a
// sample is summarised by its median with a 95% confidence interval, and two
// samples are compared with the Mann–Whitney U test at alpha 0.05
// (benchmath.AssumeNothing), because run-to-run measurements of services are
// rarely normal.
//
// # Usage
//
//	c := stats.Compare(baseCPUPerRequest, newCPUPerRequest)
//	fmt.Println(c.FormatDelta()) // "+12.3%", "~" (no significant change) or "?" (too few runs)
//
//	th, err := stats.ParseFailOn("cpu_per_request>+5%,rps<-5%")
//	if th[0].Violated(c) { ... } // exit non-zero
//
// The package does no I/O.
package stats
