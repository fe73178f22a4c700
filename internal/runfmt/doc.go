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
// knows.
package runfmt
