package report

import (
	"bytes"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// One golden a writer: what a run or a comparison prints in each of its
// forms (the findings' words, per kind, are TestFindingWords').

// TestVerdictGolden is `perflab run`'s text: the headline, the load and the
// verdict.
func TestVerdictGolden(t *testing.T) {
	r := sampleRun()
	var b bytes.Buffer
	for _, err := range []error{WriteHeadline(&b, r), WriteLoadText(&b, r.Load), WriteVerdict(&b, r, "perflab-runs/"+r.ID)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	golden(t, ".txt", b.Bytes())
}

// TestRunMarkdownGolden is a run's markdown summary (--format markdown, a
// CI job's summary).
func TestRunMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRunMarkdown(&b, sampleRun(), "perflab-runs/x", MarkdownOptions{RunsDir: "perflab-runs"}); err != nil {
		t.Fatal(err)
	}
	golden(t, ".md", b.Bytes())
}

// TestPRCommentGolden is a comparison's markdown, the pull-request
// comment of `perflab compare --format markdown`.
func TestPRCommentGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, sampleComparison(), MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, ".md", b.Bytes())
}

// TestRunsGolden is `perflab runs`.
func TestRunsGolden(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	runs := []runfmt.RunListing{
		{ID: "20260102-030405-svc", Name: "svc", Started: at, Status: runfmt.StatusComplete, Requests: 3200, RPS: 796, P99Ms: 12.5, CPUMsPerRequest: 1.234},
		{ID: "20260102-031000-svc", Name: "svc", Started: at.Add(5 * time.Minute), Status: runfmt.StatusPartial, PartialReason: "the service exited during the warm-up"},
		{ID: "20260102-032000-svc", Dir: "perflab-runs/20260102-032000-svc", Error: `findings[2].kind: unknown finding kind "foo"`},
	}
	var b bytes.Buffer
	if err := WriteRunsTable(&b, runs); err != nil {
		t.Fatal(err)
	}
	golden(t, ".txt", b.Bytes())
}

// TestProfilingGolden is what limits a CPU profile, at the top of the
// verdict, and `perflab profile`'s summary of a profile-only run.
func TestProfilingGolden(t *testing.T) {
	r := &runfmt.Run{ID: "20260102-030405-web", Status: runfmt.StatusComplete,
		Target: &runfmt.TargetSummary{CPUCoresMean: 1.8, CPUCoresMax: 1.95, CPUMsPerRequest: 3, Source: "cgroup-v1"},
		Profiling: &runfmt.Profiling{
			Notes:              []string{"Ruby service sampled with perf: rbspy is not installed (cargo install rbspy)"},
			ProfilerCPUSeconds: 0.1, MeasuredCPUSeconds: 5, ProfilerOverhead: 0.02,
			Processes: []runfmt.ProcessProfile{
				{PID: 10, Runtime: "ruby", Profiler: "perf", CPUSeconds: 0.01},
				{PID: 11, Runtime: "ruby", Profiler: "perf", CPUSeconds: 2.4},
				{PID: 12, Runtime: "ruby", CPUSeconds: 0},
			},
		},
		Findings: sampleRun().Findings}
	var b bytes.Buffer
	p := &printer{w: &b}
	p.profiling(r.Profiling)
	if err := WriteProfileSummary(&b, r, "perflab-runs/"+r.ID); err != nil {
		t.Fatal(err)
	}
	golden(t, ".txt", b.Bytes())
}
