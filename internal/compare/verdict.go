package compare

import (
	"fmt"

	"perflab/internal/runfmt"
)

// verdictOf settles a comparison: fail when a --fail-on rule was violated;
// warn when nothing failed but a rule could not be checked (too few runs)
// or runs were measured on a noisy machine; pass otherwise.
func verdictOf(c *runfmt.Comparison) *runfmt.Verdict {
	v := &runfmt.Verdict{Status: runfmt.VerdictPass, Reasons: []string{}}
	for _, t := range c.Thresholds {
		if t.Violated {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s%s: %+.1f%% (significant)", stepPrefix(t.Step), t.Rule, t.DeltaPct))
		}
	}
	if len(v.Reasons) > 0 {
		v.Status = runfmt.VerdictFail
	}
	var warns []string
	for _, t := range c.Thresholds {
		if t.TooFew {
			warns = append(warns, fmt.Sprintf("%s%s: too few runs to tell", stepPrefix(t.Step), t.Rule))
		}
	}
	if len(c.Thresholds) == 0 && allTooFew(c.Metrics) {
		warns = append(warns, "too few runs for any significant change (4 a side are the least)")
	}
	for _, g := range []runfmt.Group{c.Base, c.New} {
		if g.NoisyRuns > 0 {
			warns = append(warns, fmt.Sprintf("%d of %d %s runs were measured on a noisy machine", g.NoisyRuns, len(g.Runs), g.Label))
		}
	}
	if len(warns) > 0 && v.Status == runfmt.VerdictPass {
		v.Status = runfmt.VerdictWarn
	}
	v.Reasons = append(v.Reasons, warns...)
	return v
}

func stepPrefix(step string) string {
	if step == "" {
		return ""
	}
	return step + ": "
}

func allTooFew(ms []runfmt.MetricComparison) bool {
	for _, m := range ms {
		if !m.TooFew {
			return false
		}
	}
	return len(ms) > 0
}

// sharedRevision is the git revision all runs measured, if they share one.
func sharedRevision(runs []run) *runfmt.Revision {
	var rev *runfmt.Revision
	for _, r := range runs {
		switch {
		case r.r.Revision == nil:
			return nil
		case rev == nil:
			rev = r.r.Revision
		case rev.Commit != r.r.Revision.Commit:
			return nil
		}
	}
	return rev
}

// builtFromGit says every run measured a revision built from git.
func builtFromGit(runs []run) bool {
	for _, r := range runs {
		if r.r.Revision == nil {
			return false
		}
	}
	return len(runs) > 0
}
