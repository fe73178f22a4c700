package report

import "perflab/internal/runfmt"

// LeadFinding is the finding a run's pages lead with (report.html's
// headline, its row in the UI's index): the first of the list the answer
// ranked (runfmt.Answer). A run stored before the answer leads with the
// first finding of the verdict
// the run answers (see question): a CPU finding when it answers what costs
// CPU, a wait when it answers where the time goes; the first finding when
// none is of that verdict. A run written before contention on a noisy
// machine became the measurement banner's may hold it as a finding: it is
// passed over, the banner says it.
func LeadFinding(r *runfmt.Run) (runfmt.Finding, bool) {
	if r.Answer != nil { // the findings are ranked by it: the first is the one
		if len(r.Findings) == 0 {
			return runfmt.Finding{}, false
		}
		return r.Findings[0], true
	}
	q := WhatCostsCPU
	if r.Ledger != nil && (r.Ledger.Time != nil || r.Ledger.CPU != nil) {
		q, _ = question(r)
	}
	first := -1
	for i, f := range r.Findings {
		if f.Kind == runfmt.FindingCPUContention && r.Quality.Noisy() {
			continue
		}
		if first < 0 {
			first = i
		}
		if findingAnswers(f) == q {
			return f, true
		}
	}
	if first < 0 {
		return runfmt.Finding{}, false
	}
	return r.Findings[first], true
}

// findingAnswers is the verdict a finding belongs to: where the time goes
// for a wait without CPU of its own, what costs CPU otherwise.
func findingAnswers(f runfmt.Finding) Question {
	if f.Figures[runfmt.FigWaitPerRequest] > 0 && f.Figures[runfmt.FigCPUPerRequest] == 0 {
		return WhereTimeGoes
	}
	return WhatCostsCPU
}
