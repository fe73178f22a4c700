// Package analysis tells where each request's cost goes in a profile: a
// pprof-style top table with flat and cumulative cost per function and
// pprof's list, the cost of standard-library and runtime frames charged to
// the nearest user function that called them ([Costs]), per-request
// normalisation, the functions that own a cost ([Owner]), the CPU per
// request handler ([Endpoints]), the split of a wall-time profile by kind
// and wait ([TimeKinds], [WaitView]), culprit source lines, self-contained
// interactive flame graphs (plain and differential) and exports (folded
// stacks, speedscope). Profiles are read by package stacks; the rules that
// turn these views into findings are package findings'. Everything here is
// a pure function of *profile.Profile values (github.com/google/pprof/profile)
// and run records; nothing reads the network or the run store.
//
// # User code
//
// A frame is user code when the user can change it: the service's own
// packages and its third-party dependencies. Go standard-library and runtime
// packages, kernel and libc frames, unsymbolised addresses and the Python or
// Ruby standard libraries are not. See [UserCode] to adjust the rule.
//
// # Attribution
//
// With attribution, the cost of a non-user frame goes to the nearest user
// function above it on the stack, so "strings.ToLower is 30% of CPU" becomes
// "main.search spends 30% of CPU, most of it in strings.ToLower". Stacks
// without any user frame are charged to their outermost meaningful frame
// (runtime.gcBgMarkWorker, net/http.(*conn).serve, ...).
//
// # perflab's own measuring
//
// A Go service serves perflab's profile and trace requests itself, and
// their work is in its profiles. A stack with a frame of it (the rule is
// ownership.IsGoMeasuring's) is in no function's cost and in no table;
// it stays in a profile's total, so shares remain shares of all the
// profile stands for, and is counted apart: [Costs.Measured],
// [Table.Measured], the CPU account's measuring owner ([CPUOwnerShares]),
// [SplitTotal] and [MeasuringOf]. See measuring.go.
//
// # The owner and the line
//
// Where stacks are user code all the way down, the function to change is
// not a leaf: [Costs.Owners] walks from the costliest user code toward the
// callee holding most of its cost and stops where the cost fans out, stays
// in the function or recurses (see owner.go), and names that owner with the
// callees its cost is spread over. Below a user function,
// [Costs.LibraryHolder] walks the library code the same way, past entry
// frames that only pass the call on (a descriptor's __get__, a wrapper),
// to the library function that holds the cost (libwalk.go).
// [CulpritLines] finds the source lines the cost goes through; [List] is
// pprof's list, per request, reading sources through [Sources];
// [Endpoints] attributes a Go server's CPU to the handlers net/http ran
// and the load targets they served.
//
// # Large profiles
//
// [Top] works on a reduced form of the profile, a stacks.Set: one entry per
// distinct stack of function names (of function and line, for
// [TopOptions].Lines and pprof's list). [TopFile] and [ListFile] build that
// form straight from the encoded file (stacks.ReadFile) without
// materialising a *profile.Profile, which is what makes `perflab top` and
// `perflab list` cheaper than pprof's on big profiles.
package analysis
