package report

import (
	"fmt"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// htmlFindMax is a find-max run's search: its result, then every rate it
// tried, as the terminal printed them.
type htmlFindMax struct {
	Result string
	Notes  []string
	Steps  []htmlFindMaxStep
}

type htmlFindMaxStep struct {
	Rate, Achieved, P99, Errors, Cores, CPU, Machine, Verdict string
	Pass, Best                                                bool
}

// findMaxView is the search of r, nil when r is not a find-max run.
func findMaxView(r *runfmt.Run) *htmlFindMax {
	m := r.FindMax
	if m == nil {
		return nil
	}
	v := &htmlFindMax{Result: fmt.Sprintf("No step met %s.", m.SLO)}
	if m.MaxRPS > 0 {
		v.Result = fmt.Sprintf("Highest sustainable rate: %s requests/s within %s, at %s of CPU per request; the charts and figures below are that step's.",
			units.Sig(m.MaxRPS), m.SLO, units.FormatMs(m.CPUMsPerRequest))
	}
	if r.Quality.Noisy() {
		v.Notes = append(v.Notes, "A noisy machine moves find-max rates: this rate is not the service's capacity.")
	}
	if m.BelowBudget != "" {
		v.Notes = append(v.Notes, m.BelowBudget)
	}
	for _, st := range m.Steps {
		errPct := 0.0
		if st.Requests > 0 {
			errPct = 100 * float64(st.Errors) / float64(st.Requests)
		}
		row := htmlFindMaxStep{Rate: units.Sig(st.Rate) + "/s", Achieved: units.Sig(st.RPS) + "/s", P99: units.FormatMs(st.P99Ms),
			Errors: units.FormatPct(errPct), Cores: units.Sig(st.CPUCores), CPU: units.FormatMs(st.CPUMsPerRequest),
			Machine: st.Measurement, Verdict: "pass", Pass: st.Pass, Best: st.Pass && st.Rate == m.MaxRPS}
		if !st.Pass {
			row.Verdict = "fail: " + st.Reason
		}
		v.Steps = append(v.Steps, row)
	}
	return v
}
