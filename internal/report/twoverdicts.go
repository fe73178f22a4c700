package report

import (
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// A run answers one of two questions first: what costs CPU (the CPU
// account) or where the time goes (the time account). Each has its own
// first line; the headline says which question the run answers and puts
// its line first.

// Thresholds of the question a run answers.
const (
	// atBudgetUse: from this share of its CPU budget a service's time is
	// its CPU's (queueing behind it included): CPU first.
	atBudgetUse = 0.95
	// farBelowUse and latencyOverCPU: below this share of its budget, with
	// a mean latency at least latencyOverCPU times its CPU per request,
	// the requests mostly wait: time first.
	farBelowUse    = 0.5
	latencyOverCPU = 2.0
)

// Question is which of the two verdicts a run answers first.
type Question int

// The questions.
const (
	WhatCostsCPU Question = iota
	WhereTimeGoes
)

// budgetUse is the service's mean CPU over its budget (its quota, else the
// host's cores as its CPU-bound verdict counts them); ok is false when
// unknown.
func budgetUse(r *runfmt.Run) (float64, bool) {
	t := r.Target
	switch {
	case t == nil:
		return 0, false
	case t.CPULimitCores > 0:
		return t.CPUCoresMean / t.CPULimitCores, true
	case r.Quality != nil && r.Quality.HostCores > 0:
		return t.CPUCoresMean / float64(r.Quality.HostCores), true
	}
	return 0, false
}

// question picks the question r answers first and says why.
func question(r *runfmt.Run) (Question, string) {
	use, ok := budgetUse(r)
	t := r.Ledger.Time
	cpuMs := 0.0
	if a := r.Ledger.CPU; a != nil {
		cpuMs = a.MeasuredMs
	}
	switch {
	case ok && use >= atBudgetUse || r.Target != nil && r.Target.CPUBound:
		return WhatCostsCPU, "at its CPU budget (" + units.FormatShare(use) + " used): its CPU limits its throughput"
	case t != nil && ok && use < farBelowUse && cpuMs > 0 && t.LatencyMs >= latencyOverCPU*cpuMs:
		return WhereTimeGoes, "far below its CPU budget (" + units.FormatShare(use) + " used) with " + units.FormatMs(t.LatencyMs) +
			" of latency for " + units.FormatMs(cpuMs) + " of CPU: requests mostly wait"
	case t != nil && cpuMs <= 0:
		return WhereTimeGoes, "its CPU per request was not measured"
	}
	return WhatCostsCPU, "its CPU and its latency both matter"
}

// verdictLines are the headline's lines of the answer: what could not be
// seen, what limits the service, the first finding and its payoff (the
// accounts themselves follow on every page). A run decided before the
// answer existed says which question it answers, and the first line of
// each account, instead. None for a run without a ledger.
func verdictLines(r *runfmt.Run) []HeadlineLine {
	if r.Ledger == nil || r.Ledger.Time == nil && r.Ledger.CPU == nil {
		return nil
	}
	if r.Answer == nil {
		return questionLines(r)
	}
	var lines []HeadlineLine
	if d := doubtsText(r.Answer, r.Quality); d != "" {
		lines = append(lines, HeadlineLine{"Uncertain", d, "warn"})
	}
	lines = append(lines, HeadlineLine{"Limited by", answerLimits(r.Answer, r), "ok"})
	if f, ok := LeadFinding(r); ok {
		text := FindingName(f)
		if p := payoffText(&f, r.Answer); p != "" {
			text += " — " + p
		}
		lines = append(lines, HeadlineLine{"First finding", text, "ok"})
	}
	return lines
}

// questionLines are the headline's lines of a run stored without an
// answer: which question it answers and why, and its first finding (the
// accounts themselves follow on every page).
func questionLines(r *runfmt.Run) []HeadlineLine {
	q, why := question(r)
	lines := []HeadlineLine{{"Answers", "what costs CPU: " + why, "ok"}}
	if q == WhereTimeGoes {
		lines = []HeadlineLine{{"Answers", "where the time goes: " + why, "ok"}}
	}
	if f, ok := LeadFinding(r); ok {
		lines = append(lines, HeadlineLine{"First finding", FindingTitle(f), "ok"})
	}
	return lines
}
