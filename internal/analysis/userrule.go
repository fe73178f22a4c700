package analysis

import (
	"regexp"

	"perflab/internal/runfmt"
)

// RunUserCode is the rule of user code a run recorded: its project root
// (profiling.src) and its --user-code pattern (profiling.user_code), so
// what reads the run later (top, flame, compare) classifies its functions
// as its verdict did. The zero UserCode (the default rule) when the run
// recorded none.
func RunUserCode(pr *runfmt.Profiling) UserCode {
	var uc UserCode
	if pr == nil {
		return uc
	}
	uc.Root = pr.Src
	if pr.UserCode != "" {
		// Compiled when the run was made; a pattern that no longer
		// compiles (a hand edit) leaves the default rule.
		uc.Match, _ = regexp.Compile(pr.UserCode)
	}
	return uc
}
