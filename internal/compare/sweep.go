package compare

import (
	"slices"

	"perflab/internal/runfmt"
)

// Sweep gathers the comparisons of a sweep — steps[i] compares values[0]
// with values[i+1] — into the one shape compare and ab print: the top level
// is the comparison of the first value with the last, with every step's
// checks (each named by its value), failures and warnings, and the worst
// of the steps' verdicts.
func Sweep(env string, values []string, steps []runfmt.Comparison, warnings []string) *runfmt.Comparison {
	c := &runfmt.Comparison{Env: env, Values: values, Comparisons: steps,
		Metrics: []runfmt.MetricComparison{}, Functions: []runfmt.FunctionDelta{}, Warnings: append([]string{}, warnings...)}
	if len(steps) > 0 {
		last := steps[len(steps)-1]
		c.Base, c.New, c.Metrics, c.Functions = last.Base, last.New, last.Metrics, last.Functions
	}
	v := &runfmt.Verdict{Status: runfmt.VerdictPass, Reasons: []string{}}
	for i := range steps {
		s := &steps[i]
		step := s.New.Label
		for _, t := range s.Thresholds {
			t.Step = step
			c.Thresholds = append(c.Thresholds, t)
			if t.Violated {
				c.Failed = append(c.Failed, step+": "+t.Rule)
			}
		}
		for _, w := range s.Warnings {
			if !slices.Contains(c.Warnings, w) {
				c.Warnings = append(c.Warnings, w)
			}
		}
		if s.Verdict == nil {
			continue
		}
		if rank(s.Verdict.Status) > rank(v.Status) {
			v.Status = s.Verdict.Status
		}
		for _, r := range s.Verdict.Reasons {
			v.Reasons = append(v.Reasons, step+": "+r)
		}
	}
	if len(steps) == 0 {
		v.Status = runfmt.VerdictWarn
		v.Reasons = append(v.Reasons, "fewer than two values finished: nothing compared")
	}
	c.Verdict = v
	return c
}

// rank orders verdict statuses from best to worst.
func rank(status string) int {
	switch status {
	case runfmt.VerdictFail:
		return 2
	case runfmt.VerdictWarn:
		return 1
	}
	return 0
}
