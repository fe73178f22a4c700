// Package batch runs a batch program once and measures it until it exits,
// on the stages of a service's run where they apply (package session's
// prepare, record and save): the program held before its first
// instruction while the kernel's tracing and perf attach, its wall time,
// CPU, the cores it used of those it could, peak RSS and its threads' time
// by state, then its own decide stage: the hot functions, the findings and
// its serial phases (from a Go program's scheduler trace, the sampler's
// steps or perf's samples).
package batch
