// Package findings applies perflab's rules to a run's profiles and
// summaries (FindingInput) and returns the findings, ranked by the time
// per request they explain: what costs CPU (library work under a user
// function, the functions that own the most cost, the garbage collector,
// a CPU budget), what requests wait for (downstream services, locks,
// pools, sleeps, system calls, the scheduler, other processes) and what
// grows (goroutines, the live heap). The profiles are read through
// package analysis's views.
package findings
