package capture

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestGCTraceSummary(t *testing.T) {
	var g GCTrace
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lines := []string{
		// before the window: the baseline for the allocation rate and the "%" delta
		"gc 1 @1.000s 10%: 0.1+1+0.1 ms clock, 0.2+1/2/3+0.2 ms cpu, 10->12->6 MB, 12 MB goal, 0 MB stacks, 0 MB globals, 2 P",
		"gc 2 @2.000s 10%: 0.5+1+0.3 ms clock, 0.2+1/2/3+0.2 ms cpu, 14->16->8 MB, 16 MB goal, 0 MB stacks, 0 MB globals, 2 P",
		"unrelated log line",
		"gc 3 @3.000s 12%: 0.2+1+0.4 ms clock, 0.2+1/2/3+0.2 ms cpu, 20->22->7 MB, 16 MB goal, 0 MB stacks, 0 MB globals, 2 P",
		"gc 4 @4.000s 13%: 0.1+1+2.0 ms clock, 0.2+1/2/3+0.2 ms cpu, 17->30->9 MB, 14 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)",
	}
	for i, l := range lines {
		g.Add(l, t0.Add(time.Duration(i)*time.Second))
	}
	from, to := t0.Add(1500*time.Millisecond), t0.Add(5*time.Second)
	s := g.Summary(from, to, 0.5)
	// events 2..4 are in the window (gc 2 seen at t0+1s is before from).
	if s.Count != 2 {
		t.Fatalf("Count %d, want 2 (gc 3 and gc 4)", s.Count)
	}
	// GC CPU per event: 0.2+1+2+0.2 = 3.4 ms (idle 3 left out); 2 events = 6.8 ms of 0.5 s.
	near(t, "CPUPct", s.CPUPct, 6.8e-3/0.5*100)
	near(t, "PauseMaxMs", s.PauseMaxMs, 2.0)
	near(t, "PauseP50Ms", s.PauseP50Ms, 0.2) // pauses 0.1 0.2 0.4 2.0
	near(t, "PauseP99Ms", s.PauseP99Ms, 2.0)
	near(t, "HeapMaxMiB", s.HeapMaxMiB, 30)
	// allocations: (20−8) + (17−7) = 22 MB in 3.5 s.
	near(t, "AllocMiBPerS", s.AllocMiBPerS, 22/3.5)
	// Without CPU time: the trace's own %, from gc 2 (10% of 2 s) to gc 4 (13% of 4 s).
	near(t, "CPUPct from %", g.Summary(from, to, 0).CPUPct, (13*4.0-10*2.0)/2)
	if s := g.Summary(to, to.Add(time.Second), 1); s.Count != 0 || s.CPUPct != 0 {
		t.Errorf("empty window summary %+v, want zero", s)
	}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %g, want %g", name, got, want)
	}
}

// TestGCTraceRealProgram runs a Go program that allocates hard with
// GODEBUG=gctrace=1 and feeds its stderr to a GCTrace, as the lab does.
func TestGCTraceTimeline(t *testing.T) {
	var g GCTrace
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		line := fmt.Sprintf("gc %d @%d.000s 10%%: 0.5+1+0.25 ms clock, 0.2+1/2/3+0.2 ms cpu, %d->%d->%d MB, 16 MB goal, 0 MB stacks, 0 MB globals, 2 P", i+1, i, 10+i, 12+i, 6+i)
		g.Add(line, t0.Add(time.Duration(i)*time.Second))
	}
	all := g.Timeline(t0.Add(500*time.Millisecond), t0.Add(20*time.Second), 100)
	if len(all) != 9 {
		t.Fatalf("Timeline kept %d events, want the 9 in the window", len(all))
	}
	e := all[0]
	if e.T != 0.5 || e.HeapStartMiB != 11 || e.HeapEndMiB != 13 || e.HeapLiveMiB != 7 || e.PauseMs != 0.75 {
		t.Errorf("first event = %+v, want gc 2 at 0.5 s: 11->13->7 MB, pauses 0.75 ms", e)
	}
	few := g.Timeline(t0, t0.Add(20*time.Second), 3)
	if len(few) != 3 || few[0].T != 0 || few[2].T < 6 {
		t.Errorf("Timeline bounded to 3 = %+v, want 3 spread over the window", few)
	}
}

func TestGCTraceRealProgram(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(buildProgram(t, "gcload"))
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOMAXPROCS=2")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var g GCTrace
	from := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		g.Add(sc.Text(), time.Now())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gcload: %v", err)
	}
	to := time.Now()
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	s := g.Summary(from, to, cpu)
	t.Logf("gcload: %.2fs CPU, summary %+v", cpu, s)
	// On a busy machine the GC workers wait for CPUs and gctrace counts
	// more than the process used: no share, and a note that says why.
	share := s.CPUPct > 0 && s.CPUPct <= 100 || s.CPUPct == 0 && strings.HasPrefix(s.CPUPctNote, "share of CPU unknown")
	if s.Count == 0 || !share || s.PauseMaxMs <= 0 || s.HeapMaxMiB <= 0 || s.AllocMiBPerS <= 0 {
		t.Errorf("summary %+v: want GCs with CPU share in (0,100] (or unknown), pauses, heap and allocation rate", s)
	}
	if s0 := g.Summary(from, to, 0); s0.CPUPct <= 0 && s0.CPUPctNote == "" {
		t.Errorf("summary from the trace's own %% = %+v, want CPUPct > 0", s0)
	}
}

// TestGCTraceRecordedLog reads gctrace lines recorded from Go 1.26.
func TestGCTraceRecordedLog(t *testing.T) {
	f, err := os.Open("testdata/gctrace/go1.26.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		if _, ok := ParseGCLine(sc.Text()); !ok {
			t.Errorf("ParseGCLine(%q) not ok", sc.Text())
		}
		n++
	}
	if n < 10 {
		t.Errorf("read %d lines, want the recorded log", n)
	}
}

// A GC "share" above 100% of the process's CPU is not printed as one.
func TestGCTraceShareAbove100IsUnknown(t *testing.T) {
	var g GCTrace
	at := time.Now()
	g.Add("gc 1 @1.000s 5%: 0.1+50+0.1 ms clock, 0.2+10/90/0+0.2 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P", at)
	s := g.Summary(at.Add(-time.Second), at.Add(time.Second), 0.05) // 100.4 ms of GC "cpu" in 50 ms of CPU
	if s.CPUPct != 0 || !strings.Contains(s.CPUPctNote, "share of CPU unknown: gctrace counts 201%") {
		t.Errorf("summary %+v; want no share and a note", s)
	}
	if s := g.Summary(at.Add(-time.Second), at.Add(time.Second), 1); s.CPUPct < 10 || s.CPUPct > 10.1 || s.CPUPctNote != "" {
		t.Errorf("summary %+v; want a 10%% share", s)
	}
}
