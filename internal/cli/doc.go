// Package cli is perflab's command tree: it maps flags to the config structs
// of the other packages, validates them, calls them, and maps errors to exit
// codes. Process state (standard streams, environment, terminal) comes in
// through Env, so commands are testable in-process.
package cli
