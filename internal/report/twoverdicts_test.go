package report

import (
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// verdictRun is a run of a service using use of a 1-core budget, with
// latency ms of mean latency for cpu ms of CPU per request, runnable the
// largest part of it.
func verdictRun(use, latency, cpu float64) *runfmt.Run {
	runnable, cpuRow := latency-cpu, cpu
	return &runfmt.Run{
		Target: &runfmt.TargetSummary{CPULimitCores: 1, CPUCoresMean: use, CPUMsPerRequest: cpu},
		Hot:    []runfmt.HotFunc{{Function: "main.render", UserCode: true, CPUUsPerRequest: 600 * cpu}},
		Ledger: &runfmt.Ledger{
			Time: &runfmt.TimeAccount{LatencyMs: latency, Rows: []runfmt.LedgerRow{
				{Part: runfmt.PartCPU, MsPerRequest: &cpuRow}, {Part: runfmt.PartRunnable, MsPerRequest: &runnable}}},
			CPU: &runfmt.CPUAccount{MeasuredMs: cpu, Source: "cgroup-v1"},
		},
	}
}

// TestHeadlinePicksTheQuestion: a run stored without an answer says which
// question it answers: at the budget what costs CPU; far below it with a
// latency many times the CPU, where the time goes.
func TestHeadlinePicksTheQuestion(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     *runfmt.Run
		answers string
	}{
		{"at the budget", verdictRun(0.97, 20, 2), "what costs CPU: at its CPU budget (97% used)"},
		{"far below, slow", verdictRun(0.2, 149, 3.7), "where the time goes: far below its CPU budget (20% used)"},
		{"below, fast", verdictRun(0.6, 3, 2), "what costs CPU: its CPU and its latency both matter"},
	} {
		lines := NewHeadline(c.run).Lines
		if len(lines) != 1 || lines[0].Label != "Answers" || !strings.HasPrefix(lines[0].Text, c.answers) {
			t.Errorf("%s: headline %+v; want Answers %q", c.name, lines, c.answers)
		}
	}
}

// TestLeadFindingAnswersTheQuestion: the finding a run's pages lead with
// is the first of the verdict the run answers, follows the answer in the
// headline, and is never the machine's noise.
func TestLeadFindingAnswersTheQuestion(t *testing.T) {
	hot := runfmt.Finding{Kind: runfmt.FindingHotUserFunction, Figures: runfmt.Figures{runfmt.FigCPUPerRequest: 1200, runfmt.FigShare: 0.6},
		Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: "main.render"}}}}
	wait := runfmt.Finding{Kind: runfmt.FindingDownstreamWait, Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 9000, runfmt.FigShare: 0.5}}
	noise := runfmt.Finding{Kind: runfmt.FindingCPUContention, Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 12000, runfmt.FigShare: 0.7}}
	for _, c := range []struct {
		name string
		run  *runfmt.Run
		want runfmt.FindingKind
	}{
		{"at the budget", verdictRun(0.97, 20, 2), runfmt.FindingHotUserFunction},
		{"far below, slow", verdictRun(0.2, 149, 3.7), runfmt.FindingDownstreamWait},
	} {
		c.run.Findings = []runfmt.Finding{noise, wait, hot}
		c.run.Quality = &runfmt.Quality{Verdict: runfmt.QualityNoisy}
		f, ok := LeadFinding(c.run)
		if !ok || f.Kind != c.want {
			t.Errorf("%s: leads with %s; want %s", c.name, f.Kind, c.want)
		}
		lines := NewHeadline(c.run).Lines
		if i := slices.IndexFunc(lines, func(l HeadlineLine) bool { return l.Label == "First finding" }); i != 2 || lines[i].Text != FindingTitle(f) {
			t.Errorf("%s: headline %+v; want the lead finding right after the answer", c.name, lines)
		}
	}
	r := verdictRun(0.97, 20, 2)
	r.Findings = []runfmt.Finding{wait}
	if f, _ := LeadFinding(r); f.Kind != runfmt.FindingDownstreamWait {
		t.Errorf("a CPU run with only a wait leads with %s; want that wait", f.Kind)
	}
	r.Findings, r.Quality = []runfmt.Finding{noise}, &runfmt.Quality{Verdict: runfmt.QualityNoisy}
	if f, ok := LeadFinding(r); ok {
		t.Errorf("a noisy run whose only finding is the wait for a CPU leads with %s; want none", f.Kind)
	}
	r.Quality = nil
	if f, _ := LeadFinding(r); f.Kind != runfmt.FindingCPUContention {
		t.Errorf("a quiet run leads with %s; want cpu-contention (the service and its load generator shared the CPUs)", f.Kind)
	}
}
