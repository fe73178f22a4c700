package cli

import (
	"fmt"
	"strings"

	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// defaultFindMaxSLO is what --find-max searches within when --slo is not
// given.
const defaultFindMaxSLO = "p99<100ms,errors<1%"

// parseSLO parses --slo; "" is no objective.
func parseSLO(s string) (lab.SLO, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	slo, err := lab.ParseSLO(s)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return slo, nil
}

// sloExit ends a command whose --slo was missed with ExitSLO, naming what
// was missed; nil when every objective was met (or there were none).
func sloExit(checks []runfmt.SLOCheck, what string) error {
	var missed []string
	for _, c := range checks {
		if !c.Pass {
			missed = append(missed, fmt.Sprintf("%s=%s (want %s)", c.Metric, report.FormatSLOValue(c), c.Objective))
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return &exitError{code: ExitSLO, err: fmt.Errorf("%s missed its SLO: %s", what, strings.Join(missed, ", "))}
}
