// Package stacks reads pprof profiles (profile.proto, gzipped or not) into
// the form perflab's analyses work on: a [Set] of the profile's distinct
// call stacks, each a list of functions (leaf first, inlined frames
// expanded) with its summed sample values, at function or line
// granularity. The profile's drop_frames and keep_frames are applied as
// pprof applies them, and the runtime's preemption frames are dropped.
//
// [ReadFile] and [Read] stream the encoded profile through a lean decoder
// that merges samples by stack as they arrive, so memory grows with the
// number of distinct stacks rather than samples; inputs it does not
// understand fall back to profile.Parse. [FromProfile] builds the same
// form from a parsed *profile.Profile. Every read is bounded: regular
// files of at most runfmt.MaxProfileBytes, inflating to at most
// runfmt.MaxProfileDecodedBytes.
package stacks
