package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func ms(v float64) *float64 { return &v }

// ledgerRun is a run of an API waiting on a local gRPC cache, with the
// kernel's timing.
func ledgerRun() *runfmt.Run {
	cpu := 0.26
	return &runfmt.Run{ID: "r1", Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Requests: 1000, DurationS: 5, Latency: runfmt.Latency{Mean: 24, P99: 84}},
		Ledger: &runfmt.Ledger{
			Time: &runfmt.TimeAccount{LatencyMs: 24, P99Ms: 84, Requests: 1000, UnexplainedMs: 1.5, ExplainedPct: 93.75, Rows: []runfmt.LedgerRow{
				{Part: runfmt.PartCPU, MsPerRequest: ms(1.6), Sources: []runfmt.LedgerSource{runfmt.LedgerGoTrace, runfmt.LedgerCgroup},
					Sites: []runfmt.TimeSite{{Function: "main.getImage", File: "/src/main.go"}}},
				{Part: runfmt.PartRunnable, MsPerRequest: ms(18.5), Sources: []runfmt.LedgerSource{runfmt.LedgerGoTrace, runfmt.LedgerKernel},
					Note: "The Go trace's runnable time and the service's own delay inside its downstream wait."},
				{Part: runfmt.PartDownstream, MsPerRequest: ms(0.4), Sources: []runfmt.LedgerSource{runfmt.LedgerKernel},
					Peer: &runfmt.LedgerPeer{Address: "127.0.0.1:50051", PID: 4242, Name: "grpccache", AnswersPerRequest: 1, AnswerMs: 0.4, CPUMsPerRequest: &cpu}},
				{Part: runfmt.PartDisk, MsPerRequest: ms(0), Sources: []runfmt.LedgerSource{runfmt.LedgerKernel}},
				{Part: runfmt.PartNetwork, MsPerRequest: ms(2), Sources: []runfmt.LedgerSource{runfmt.LedgerKernel},
					Socket: &runfmt.LedgerSocket{Ports: []int{8080}, PerRequest: 1, MeanMs: 2, Conns: 8, NagleConns: 8}},
				{Part: runfmt.PartAccept, NotMeasured: "the load kept its connections open"},
			}},
			CPU:    &runfmt.CPUAccount{MeasuredMs: 1.6, Source: "cgroup-v1", ProfiledMs: ms(1.5), Owners: []runfmt.CPUShare{{Owner: runfmt.OwnerUser, MsPerRequest: 1.2, Pct: 75}}, UnexplainedMs: 0.4},
			Notes:  []string{"The kernel's tables were full."},
			Kernel: &runfmt.KernelTiming{Processes: 1, Ports: []int{8080}, ProgramCPUSeconds: 0.05, Overhead: 0.02, ProgramCPUCounted: 0.1},
		}}
}

func TestLedgerRendered(t *testing.T) {
	r := ledgerRun()
	r.Profiling = &runfmt.Profiling{MeasuredCPUSeconds: 2, KernelCPUSeconds: 0.05, KernelOverhead: 0.025}
	var text, md, page bytes.Buffer
	if err := WriteVerdict(&text, r, "/runs/r1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunMarkdown(&md, r, "/runs/r1", MarkdownOptions{Limit: MarkdownLimit}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLWith(&page, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", text.String())
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": page.String()} {
		for _, want := range []string{"Where the time goes", "explained 94%", "unexplained", "grpccache (pid 4242)", "its CPU 260.0 µs per request",
			"8 of 8 connections with Nagle on", "not measured", "accept (the load kept its connections open)", "measured at 0: disk", "The kernel's tables were full."} {
			if !strings.Contains(strings.ToLower(html.UnescapeString(strings.ReplaceAll(out, "\\", ""))), strings.ToLower(want)) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(text.String(), "counted 10% of the time and scaled") || !strings.Contains(page.String(), "counted 10% of the time and scaled") {
		t.Error("the kernel timing's cost does not say it was counted a tenth of the time and scaled")
	}
	if !strings.Contains(text.String(), "Timing cost:\t0.050 CPU-s for the kernel timing's programs, 2.5% of the service's CPU") {
		t.Error("the verdict does not state the kernel timing's cost beside the profilers'")
	}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^  (\w+) +[0-9.]+ (ms|µs) `).FindAllStringSubmatch(text.String(), -1) {
		order = append(order, m[1])
	}
	if got := strings.Join(order, " "); !strings.HasPrefix(got, "runnable network cpu") || !strings.Contains(got, "unexplained") {
		t.Errorf("rows in the order %q; want the largest first, unexplained shown", got)
	}
	if !strings.Contains(page.String(), `<section id="ledger">`) || !strings.Contains(page.String(), `class="lbar"`) {
		t.Error("report.html lacks the ledger's section and its bar")
	}
}

// TestNoLedgerKeepsTimeSplit: a run without a ledger (older, or no
// latency) still shows the runtime's split.
func TestNoLedgerKeepsTimeSplit(t *testing.T) {
	r := &runfmt.Run{ID: "r0", Status: runfmt.StatusComplete, Load: &runfmt.LoadResult{Requests: 10, Latency: runfmt.Latency{Mean: 5}},
		Time: &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Requests: 10, TotalMs: 4, Kinds: []runfmt.TimeRow{{Kind: runfmt.TimeRunning, MsPerRequest: 4}}}}
	var text bytes.Buffer
	if err := WriteVerdict(&text, r, "/runs/r0"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Time per request") || strings.Contains(text.String(), "Where the time goes") {
		t.Errorf("verdict without a ledger:\n%s", text.String())
	}
}

// TestCPUAccountStartUpWithoutProfile: a profile that is not the verdict
// leaves the workers' start-up, measured from their processes, owned in
// the CPU line.
func TestCPUAccountStartUpWithoutProfile(t *testing.T) {
	a := &runfmt.CPUAccount{MeasuredMs: 15, Source: "cgroup-v2", UnsampledStartMs: 7.5, UnexplainedMs: 7.5, NotProfiled: "the CPU profile accounts for 44% of the CPU it could sample"}
	got := cpuAccountText(a)
	for _, want := range []string{"start-up of workers before they were sampled 7.50 ms (50%)", "the rest 7.50 ms", "not profiled: the CPU profile accounts for 44%"} {
		if !strings.Contains(got, want) {
			t.Errorf("CPU line %q lacks %q", got, want)
		}
	}
}
