package report

import (
	"bytes"
	"io"
	"math"
	"strings"
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
// comment of `perflab compare --format markdown`, for each outcome: a
// regression (the sample's revisions swapped, two rules crossed), an
// improvement, and no significant change.
func TestPRCommentGolden(t *testing.T) {
	unchanged := sampleComparison()
	for i := range unchanged.Metrics {
		m := &unchanged.Metrics[i]
		m.New, m.DeltaPct, m.Significant = m.Base, 0, false
		if m.PValue != nil {
			m.PValue = fp(0.69)
		}
	}
	unchanged.Functions = unchanged.Functions[2:3] // main.handler: -2%, p=0.55
	for i := range unchanged.Thresholds {
		unchanged.Thresholds[i].DeltaPct, unchanged.Thresholds[i].Significant = 0, false
	}
	for name, c := range map[string]*runfmt.Comparison{
		"regression":  swapSides(sampleComparison()),
		"improvement": sampleComparison(),
		"unchanged":   unchanged,
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteCompareMarkdown(&b, c, MarkdownOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, ".md", b.Bytes())
		})
	}
}

// swapSides is c with its base and new swapped, as perflab would compare
// them: the changes inverted, and the rules they now cross failed.
func swapSides(c *runfmt.Comparison) *runfmt.Comparison {
	c.Base, c.New = c.New, c.Base
	c.Base.Label, c.New.Label = c.New.Label, c.Base.Label
	c.Base.Runs, c.New.Runs = c.New.Runs, c.Base.Runs
	for i := range c.Metrics {
		m := &c.Metrics[i]
		m.Base, m.New = m.New, m.Base
		m.DeltaPct = math.Round(1000*(m.New.Median/m.Base.Median-1)) / 10
	}
	for i := range c.Functions {
		f := &c.Functions[i]
		f.Base, f.New, f.Delta = f.New, f.Base, -f.Delta
		switch {
		case f.Base == 0:
			f.DeltaPct = nil
		case f.New == 0:
			f.DeltaPct = fp(-100)
		default:
			f.DeltaPct = fp(math.Round(100 * (f.New/f.Base - 1)))
		}
	}
	c.Failed = nil
	for i := range c.Thresholds {
		th := &c.Thresholds[i]
		for _, m := range c.Metrics {
			if m.Name == th.Metric {
				th.DeltaPct = m.DeltaPct
			}
		}
		th.Violated = th.Significant && (th.Metric == "rps") == (th.DeltaPct < -5) && (th.Metric == "rps" || th.DeltaPct > 5)
		if th.Violated {
			c.Failed = append(c.Failed, th.Rule)
		}
	}
	c.Verdict = &runfmt.Verdict{Status: runfmt.VerdictFail, Reasons: c.Failed}
	return c
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
	p.profiling(r)
	if err := WriteProfileSummary(&b, r, "perflab-runs/"+r.ID, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, ".txt", b.Bytes())
}

// textTable is a top table the caller computed, as report receives it.
type textTable string

func (t textTable) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, string(t))
	return err
}

// `perflab profile`'s summary prints the top table its caller read from
// each CPU profile with samples, and says a profile without samples was
// idle.
func TestProfileSummaryTops(t *testing.T) {
	r := &runfmt.Run{ID: "20260102-030405-web", Status: runfmt.StatusComplete, Profiles: []runfmt.ProfileRef{
		{Type: runfmt.ProfileCPU, File: "profiles/cpu-10.pb.gz", Source: runfmt.SourceProfilers(runfmt.ProfilerPerf), Samples: 120},
		{Type: runfmt.ProfileCPU, File: "profiles/cpu-11.pb.gz", Source: runfmt.SourceProfilers(runfmt.ProfilerPerf)},
	}}
	var b bytes.Buffer
	tops := map[string]TopTable{"profiles/cpu-10.pb.gz": textTable("      flat  flat%  main.search\n")}
	if err := WriteProfileSummary(&b, r, "perflab-runs/"+r.ID, tops); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nTop user-code functions (perf, 120 samples):\n      flat  flat%  main.search\n",
		"The CPU profile (perf) has no samples: the service was idle"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
