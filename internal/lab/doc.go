// Package lab orchestrates perflab's experiments. pipeline.go says the
// order of a run's stages: prepare, start or attach, warm, measure (package
// session, with packages window and stuck beside the load), collect, decide
// (package decide), save and render. Run, Profile and FindMax are that
// pipeline with their own measure stage; RunBatch runs a batch program to its
// exit; AB, ABGit, ABBatch and Sweep interleave runs of several
// configurations; WritePGO merges runs' CPU profiles for go build -pgo.
//
// Whatever happens — the service fails to start, crashes mid-run, a profile
// endpoint is missing, the user presses Ctrl-C — the run directory is written,
// as "partial" with the reason when the run could not complete.
package lab
