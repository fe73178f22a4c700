package report

import (
	"fmt"
	"slices"
	"strings"

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

// cpuVerdict is the first line of what costs CPU: the CPU per request,
// the function that costs most (as every page prints it) and the
// unexplained rest.
func cpuVerdict(r *runfmt.Run) string {
	a := r.Ledger.CPU
	if a == nil || a.MeasuredMs <= 0 {
		return "not measured (no CPU per request for this load)"
	}
	s := units.FormatMs(a.MeasuredMs) + " per request (" + a.Source + ")"
	if use, ok := budgetUse(r); ok && r.Target.CPULimitCores > 0 {
		s += ", " + units.FormatShare(use) + " of a " + units.Sig(r.Target.CPULimitCores) + "-core budget"
	}
	if !profileRepresentative(r) {
		return s + "; the profile does not say where (see the warnings)"
	}
	for _, h := range r.Hot {
		if us := h.CPUUsPerRequest + h.AttributedUsReq; h.UserCode && us > 0 { // its own code and what it called, as the top table prints it
			return s + "; most in " + h.Function + " " + units.FormatMicros(us) + " (" + units.FormatShare(us/1000/a.MeasuredMs) + ")" + overCountedCaveat(a)
		}
	}
	return s
}

// overCountedCaveat says when the profile's samples stood for far more CPU
// than was measured: a sampler that reads stacks at every tick (py-spy,
// rbspy, V8) counted threads waiting for a CPU as running, and those
// samples fall on the code that runs right after a wait (a send, a
// wake-up), so which function costs most is uncertain.
func overCountedCaveat(a *runfmt.CPUAccount) string {
	if a.ProfiledMs == nil || !runfmt.OverCounted(*a.ProfiledMs, a.SampledMs()) {
		return ""
	}
	return fmt.Sprintf(" — uncertain: the profile's samples stand for %.1f× the CPU measured (threads waiting for a CPU sampled as running)", *a.ProfiledMs/a.SampledMs())
}

// timeVerdict is the first line of where the time goes: the mean latency
// and its two largest parts.
func timeVerdict(r *runfmt.Run) string {
	t := r.Ledger.Time
	if t == nil {
		return "not measured (no latency split for this run)"
	}
	lines, _ := ledgerLines(t)
	var parts []string
	for _, l := range lines {
		if len(parts) == 2 || l.Pct < 5 {
			break
		}
		parts = append(parts, string(l.Part)+" "+units.FormatMs(l.Ms)+" ("+units.FormatPct(l.Pct)+")")
	}
	s := units.FormatMs(t.LatencyMs) + " mean latency"
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", then ")
	}
	return s
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
// answer: which question it answers and why, then the two first lines in
// that order.
func questionLines(r *runfmt.Run) []HeadlineLine {
	q, why := question(r)
	cpu := HeadlineLine{"What costs CPU", cpuVerdict(r), "ok"}
	tm := HeadlineLine{"Where the time goes", timeVerdict(r), "ok"}
	lines := []HeadlineLine{{"Answers", "what costs CPU: " + why, "ok"}, cpu, tm}
	if q == WhereTimeGoes {
		lines = []HeadlineLine{{"Answers", "where the time goes: " + why, "ok"}, tm, cpu}
	}
	if f, ok := LeadFinding(r); ok {
		lines = slices.Insert(lines, 2, HeadlineLine{"First finding", FindingTitle(f), "ok"})
	}
	return lines
}
