package findings

import "perflab/internal/runfmt"

// stuckRelated is how many groups besides the biggest a stuck finding
// names: those that wait with it.
const stuckRelated = 2

// Stuck is the finding of a run whose requests stopped finishing, from
// the snapshot st: the biggest group of the service's threads and the
// groups that wait with it, why the snapshot was taken (its first note)
// and what it could not read (the others), and the lever for the biggest
// group's kind of wait. The biggest group's function is the culprit
// unless it waits for the garbage collector (its allocation waits for a
// cycle it did not hold up) or for work (no thread was on a request in
// the service's code: the groups sort those last). It comes first among
// the findings.
func Stuck(st *runfmt.Stuck) runfmt.Finding {
	f := runfmt.Finding{Kind: runfmt.FindingStuck, Figures: st.Figures()}
	f.Evidence.Notes = st.Notes
	if st.Kind == "" { // a snapshot before schema 5: its words say why
		f.Evidence.Notes = append([]string{st.Reason}, st.Notes...)
	}
	for i, g := range st.Groups {
		if i == 0 || len(f.Evidence.Groups) <= stuckRelated && related(st.Groups[0], g) {
			f.Evidence.Groups = append(f.Evidence.Groups, g)
		}
	}
	if len(st.Groups) > 0 {
		g := st.Groups[0]
		if !g.Idle {
			f.Advice = stuckLever(g)
		}
		if g.Located() && g.Wait != runfmt.TimeGC && !g.Idle {
			f.Evidence.Functions = []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: g.Function, File: g.File}}
		}
	}
	return f
}

// related tells whether g waits with top: in the same call, or one calls
// the other (the goroutine that holds a lock and waits for it again).
func related(top, g runfmt.StuckGroup) bool {
	if !g.Located() || g.Idle {
		return false
	}
	return g.Blocking == top.Blocking && g.Blocking != "" || g.Caller == top.Function || top.Caller == g.Function
}

// stuckLever is what to look for, by the kind of wait.
func stuckLever(g runfmt.StuckGroup) runfmt.Advice {
	switch {
	case g.Pool:
		return runfmt.AdviceFreePoolSlots
	case g.Wait == runfmt.TimeNetwork:
		return runfmt.AdviceCallTimeouts
	case g.Wait == runfmt.TimeSync:
		return runfmt.AdviceReleaseLocks
	case g.Wait == runfmt.TimeSleep:
		return runfmt.AdviceEndRetries
	case g.Wait == runfmt.TimeRunning:
		return runfmt.AdviceEndLoops
	case g.Wait == runfmt.TimeGC:
		return runfmt.AdviceUnstallGC
	}
	return ""
}
