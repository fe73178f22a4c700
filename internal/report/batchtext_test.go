package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/findings"
	"perflab/internal/runfmt"
)

func batchRun() *runfmt.Run {
	code, busy, gc := 0, 1.31, 6.5
	r := &runfmt.Run{
		ID: "20261126-101010-trace", Status: runfmt.StatusComplete,
		Config: runfmt.Config{Command: []string{"./trace", "-mode", "buggy"}},
		Batch: &runfmt.Batch{
			ExitCode: &code, ExitStatus: "exit status 0", TimeoutS: 600,
			WallS: 2.5, UserS: 2.2, SystemS: 0.3, CPUS: 2.5, CoresMean: 1, RunnableS: 0.775, RunnableSource: "ebpf", Busy: &busy,
			Cores:       runfmt.BatchCores{Host: 8, CPUSet: 8, GOMAXPROCS: 8, GOMAXPROCSSource: "default", Usable: 8, UsableBy: "host"},
			RSSMaxBytes: 12 << 20, GCPct: &gc,
			Threads: &runfmt.BatchThreads{Processes: 1, NotSeenCPUS: 0.01, States: []runfmt.BatchThreadState{
				{State: runfmt.ThreadOnCPU, Seconds: 2.49}, {State: runfmt.ThreadRunnable, Seconds: 0.775},
				{State: runfmt.ThreadFutex, Seconds: 6.735}, {State: runfmt.ThreadDisk},
			}},
			Cost:      &runfmt.BatchCost{ProfilerCPUS: 0.2, KernelCPUS: 0.01, PerflabCPUS: 0.03, Pct: 9.6},
			LastLines: []string{"Searching 4000 files, found president 27732 times."},
		},
		Hot: []runfmt.HotFunc{{Function: "main.freq", File: "/src/trace/main.go", UserCode: true, CumPct: 70, CPUUsPerRequest: 1e5,
			AttributedUsReq: 1.65e6, CumUsPerRequest: 1.75e6, AttributedSample: "encoding/xml.Unmarshal",
			Lines: []runfmt.SourceLine{{File: "/src/trace/main.go", Line: 157, Text: "if err := xml.Unmarshal(data, &d); err != nil {"}}}},
	}
	r.Findings = findings.BatchFindings(r.Batch, r.Hot)
	return r
}

// TestWriteBatchText: a batch program's run prints what it used, its
// threads' time by state adding up to 100%, what measuring cost, the
// findings and its hot function with its line, and its output.
func TestWriteBatchText(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBatchText(&buf, batchRun(), "/runs/20261126-101010-trace"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	flat := strings.Join(strings.Fields(out), " ") // the threads' line wraps
	for _, want := range []string{
		"Program: ./trace -mode buggy (exit status 0)",
		"Wall time:\t2.50 s",
		"CPU:\t2.50 s (user 2.20 s, system 300.00 ms); 775.00 ms waiting for a CPU (ebpf)",
		"Cores:\t1.00 busy (1.31 threads on a CPU or waiting for one, on average) of 8 it could use (host 8, cpuset 8, GOMAXPROCS 8 (default)); no CPU budget",
		"Peak RSS:\t12.0 MiB",
		"GC:\t6.5% of its CPU (the CPU profile)",
		"on-cpu 2.49 s (25%), runnable 775.00 ms (7.8%), futex 6.74 s (67%); 10.00 s in all",
		"10.00 ms of CPU before threads' first switch, not split",
		"Measuring:\t9.6% of its CPU (perf 200.00 ms, kernel tracing 10.00 ms, perflab's samplers 30.00 ms)",
		"1. [serial] serial: 1 of 8 cores busy",
		"fan the independent inputs out to runtime.GOMAXPROCS(0) goroutines",
		"main.freq does 70% of its CPU (most in encoding/xml.Unmarshal under it).",
		"main.freq",
		"most in encoding/xml.Unmarshal",
		"at main.go:157",
		"  Searching 4000 files, found president 27732 times.",
		"Run 20261126-101010-trace: complete",
	} {
		if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestWriteBatchTextAtOnce: a program that exited at once shows its words,
// not figures of a run that did not happen.
func TestWriteBatchTextAtOnce(t *testing.T) {
	r := batchRun()
	code := 2
	r.Status, r.PartialReason = runfmt.StatusPartial, "the program exited at once with exit status 2"
	r.Batch.ExitCode, r.Batch.ExitStatus, r.Batch.WallS = &code, "exit status 2", 0.004
	r.Batch.LastLines = []string{"trace: -n 0: want 1 to 100000"}
	var buf bytes.Buffer
	if err := WriteBatchText(&buf, r, "/runs/x"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "exited at once (exit status 2, after 4.00 ms)") || !strings.Contains(out, "  trace: -n 0: want 1 to 100000") ||
		strings.Contains(out, "Cores:") || strings.Contains(out, "Findings") {
		t.Errorf("output:\n%s\nwant the exit and the program's words only", out)
	}
}

// TestBatchHTML: report.html of a batch program's run has its figures as
// cards and rows, no charts of a load.
func TestBatchHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTMLWith(&buf, batchRun(), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Wall time", "2.50 s", "Cores busy", "1.00 of 8", "A batch program&#39;s run", `serial: <span class="fig">1</span> of <span class="fig">8</span> cores busy`, "<code>runtime.GOMAXPROCS(0)</code>", "main.freq"} {
		if !strings.Contains(out, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A part of the measuring cost that was not measured says why, never 0.
func TestBatchCostSaysWhatWasNotMeasured(t *testing.T) {
	c := &runfmt.BatchCost{PerflabCPUS: 0.002, Pct: 0.4,
		ProfilerNote: "not run (--profiler none)", KernelNote: "not run: not root (uid 65534): loading kernel programs needs root, or CAP_BPF and CAP_PERFMON"}
	got := BatchCostText(c)
	want := "0.4% of its CPU (perf not run (--profiler none), kernel tracing not run: not root (uid 65534): loading kernel programs needs root, or CAP_BPF and CAP_PERFMON, perflab's samplers 2.00 ms)"
	if got != want {
		t.Errorf("BatchCostText = %q\nwant %q", got, want)
	}
}
