// Package pgo makes a profile for go build -pgo from runs: Check refuses,
// before any run, an experiment whose CPU profile go build -pgo could not
// take; Write merges the runs' CPU profiles that the Go runtime recorded
// and writes them atomically.
package pgo
