package report

import (
	"fmt"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The words of a CPU profile's stack reach (run.json's
// profiling.stack_reach and profiles[].stacks): what was seen, and what
// to do in the service's language (prose's remedies).

// ReachText is why a profile's stacks do not reach the user's code, in
// one sentence without its period: "98% of the samples have at most 2
// frames (median 1): the stacks stop before reaching your code".
func ReachText(v *runfmt.StackReach) string {
	share := units.FormatPct(100 * v.Share)
	switch v.Why {
	case runfmt.ReachShallow:
		s := fmt.Sprintf("%s of the samples have at most %d frames (median %d): the stacks stop before reaching your code", share, v.ShallowFrames, v.MedianFrames)
		switch {
		case v.Binary != "" && v.NoSymbols:
			s += fmt.Sprintf("; %s has no symbol table", v.Binary)
		case v.Binary != "":
			s += fmt.Sprintf("; %s appears to be built without frame pointers (%s of its functions set one up; a heuristic)", v.Binary, units.FormatPct(100*v.FramePointerShare))
		}
		return s
	case runfmt.ReachRuntimeOnly:
		return fmt.Sprintf("%s of the samples have no frame of your code: perf sees the %s runtime, not the code it runs", share, v.Lang)
	case runfmt.ReachUnnamed:
		return fmt.Sprintf("%s of the samples have no frame of your code and %s end in code no one could name", share, units.FormatPct(100*v.UnnamedShare))
	}
	return fmt.Sprintf("%s of the samples have no frame of what perflab takes for your code", share)
}

// ReachRemedy is the flag or rebuild that makes the stacks reach the
// user's code, a native binary's symbols first when it has none.
func ReachRemedy(v *runfmt.StackReach) string {
	var r string
	switch v.Fix {
	case runfmt.FixUnwind:
		r = prose.UnwindRemedy(v.Lang)
	case runfmt.FixNaming:
		r = prose.NamingRemedy(v.Lang)
	default:
		r = "say which code is yours: --user-code REGEX (matched against function names and files), or --src DIR (the project's directory)"
	}
	if v.SymbolsLang != "" {
		r = prose.NamingRemedy(v.SymbolsLang) + "; and " + r
	}
	return r
}
