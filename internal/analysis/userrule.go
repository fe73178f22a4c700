package analysis

import (
	"encoding/json"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// RunUserCode is the rule of user code a run recorded: its ownership model
// (profiling.ownership), so that what reads the run later (top, flame,
// compare, ab) classifies its functions as its verdict did. A run made
// before the model was kept falls back to its project root
// (profiling.src) and --user-code pattern (profiling.user_code) with the
// default rules; the zero UserCode when it recorded none.
func RunUserCode(pr *runfmt.Profiling) UserCode {
	if pr == nil {
		return UserCode{}
	}
	if len(pr.Ownership) > 0 {
		var m ownership.Model
		if json.Unmarshal(pr.Ownership, &m) == nil {
			return UserCode{Model: &m}
		}
	}
	// Compiled when the run was made; a pattern that no longer compiles
	// (a hand edit) leaves the default rule with the root.
	uc, err := NewUserCode(pr.UserCode, pr.Src)
	if err != nil {
		uc, _ = NewUserCode("", pr.Src)
	}
	return uc
}
