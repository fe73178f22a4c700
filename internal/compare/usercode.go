package compare

import (
	"fmt"
	"strconv"

	"perflab/internal/runfmt"
)

// userCodeRule words what decides a run's user code: its --user-code
// pattern; else the default rule, with the project root it recorded (--src,
// or the service's directory) where the root decides, for a service that
// runs Python, Ruby or JavaScript; withRoot false leaves the root out.
func userCodeRule(r run, withRoot bool) string {
	pr := r.r.Profiling
	switch {
	case pr == nil:
		return "the default rule"
	case pr.UserCode != "":
		return "--user-code " + strconv.Quote(pr.UserCode)
	case withRoot && pr.Src != "" && scripted(pr):
		return "the default rule under " + pr.Src
	}
	return "the default rule"
}

// scripted says whether a run's service ran interpreted code, whose files
// the project root decides on.
func scripted(pr *runfmt.Profiling) bool {
	for _, p := range pr.Processes {
		switch p.Runtime {
		case runfmt.RuntimePython, runfmt.RuntimeRuby, runfmt.RuntimeNode:
			return true
		}
	}
	return false
}

// userCodeRules warns when runs decide user code by different rules:
// each run's functions are classified by its own rule, each side's merged
// profile by its first run's. Two revisions built from git (ab --git) run
// from worktrees of their own, so their project roots differ by design:
// only their --user-code patterns are held to agree.
func userCodeRules(base, new []run, warn *[]string) {
	withRoot := !(builtFromGit(base) && builtFromGit(new))
	b, bok := sideRule(base, "base", withRoot, warn)
	n, nok := sideRule(new, "new", withRoot, warn)
	if bok && nok && b != n {
		*warn = append(*warn, fmt.Sprintf("user code is decided by %s in the base runs and by %s in the new runs: each side's functions are classified by its own rule, so a function may be user code on one side only", b, n))
	}
}

// sideRule is the rule the runs of a side share; when they do not, a
// warning and false.
func sideRule(runs []run, side string, withRoot bool, warn *[]string) (string, bool) {
	first := userCodeRule(runs[0], withRoot)
	for _, r := range runs[1:] {
		if x := userCodeRule(r, withRoot); x != first {
			*warn = append(*warn, fmt.Sprintf("the %s runs decide user code by different rules (%s in %s, %s in %s): each run's functions are classified by its own rule, the side's merged profile by its first run's", side, first, runs[0].id(), x, r.id()))
			return first, false
		}
	}
	return first, true
}
