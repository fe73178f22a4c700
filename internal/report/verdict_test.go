package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestVerdictHotAddsOwnAndCalledCPU checks the user-code table: a function's
// "self+called" is its own CPU plus the library CPU charged to it.
func TestVerdictHotAddsOwnAndCalledCPU(t *testing.T) {
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Requests: 100, RPS: 10},
		Hot: []runfmt.HotFunc{
			{Function: "main.search", CumPct: 80, CPUUsPerRequest: 100, CumUsPerRequest: 420, UserCode: true, AttributedUsReq: 300},
			{Function: "main.leaf", CumPct: 5, CPUUsPerRequest: 20, CumUsPerRequest: 20, UserCode: true},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "perflab ui --dir .") {
		t.Errorf("the verdict does not point at perflab ui:\n%s", b.String())
	}
	for fn, want := range map[string]string{"main.search": "400.0 µs", "main.leaf": "20.0 µs"} {
		re := regexp.MustCompile(`(?m)^\s+(\S+ µs)\s+\S+ µs\s+[0-9.]+%\s+` + regexp.QuoteMeta(fn) + `$`)
		if m := re.FindStringSubmatch(b.String()); m == nil || m[1] != want {
			t.Errorf("%s: self+called %v; want %s in\n%s", fn, m, want, b.String())
		}
	}
}

// TestDurationsPrintedOneWay: a latency of a fast service reads the same
// on report.html's cards, in its time per request and in the text
// verdict's, in the unit a reader compares it with ("350.0 µs", as the
// CPU per request of its functions).
func TestDurationsPrintedOneWay(t *testing.T) {
	r := sampleRun()
	r.Load.Latency.P50, r.Load.Latency.Mean = 0.35, 0.35
	r.Time = &runfmt.TimePerRequest{Source: "go-trace", Seconds: 1, Requests: 100, TotalMs: 0.3, Kinds: []runfmt.TimeRow{{Kind: "running", MsPerRequest: 0.3}}}
	var page, text strings.Builder
	if err := writeHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteVerdict(&text, r, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<div class="value">350.0 µs</div>`, "mean latency 350.0 µs", "300.0 µs"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(text.String(), "mean latency 350.0 µs") {
		t.Errorf("the text verdict lacks the mean latency as report.html prints it:\n%s", text.String())
	}
}

// TestLatencyCardsOfAFailedLoad: a load whose every request failed has no
// latency, and report.html's cards say so instead of a latency of 0.
func TestLatencyCardsOfAFailedLoad(t *testing.T) {
	r := sampleRun()
	r.Load.Errors, r.Load.Latency = r.Load.Requests, runfmt.Latency{}
	var page strings.Builder
	if err := writeHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), `<div class="value">0.0 µs</div>`) || strings.Count(page.String(), "no request succeeded") != 2 {
		t.Error("report.html of a load whose every request failed shows a latency of 0, not that none was measured")
	}
}

// TestVerdictFindingCostSaidOnce: a finding whose title gives its cost per
// request is not followed by the same figure again; one whose title does
// not is.
func TestVerdictFindingCostSaidOnce(t *testing.T) {
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Requests: 100, RPS: 10},
		Findings: []runfmt.Finding{
			{Kind: runfmt.FindingFormatting, Advice: runfmt.AdviceBuildStrings, Figures: runfmt.Figures{runfmt.FigShare: 0.26, runfmt.FigCPUPerRequest: 734.4},
				Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: "main.print"},
					{Role: runfmt.RoleEntry, Function: "fmt.Fprintln", Figures: runfmt.Figures{runfmt.FigShare: 0.26}}}}},
			{Kind: runfmt.FindingGC, Advice: runfmt.AdviceAllocateLess, Figures: runfmt.Figures{runfmt.FigShare: 0.16, runfmt.FigCPUPerRequest: 457.6},
				Settings: runfmt.Settings{runfmt.SettingSource: runfmt.SourceGCTrace, runfmt.SettingGOGC: "100"}},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "1. [formatting] fmt.Fprintln under main.print: 26% of CPU, 734.4 µs/request\n") || !strings.Contains(out, "takes 16% of CPU — 457.6 µs CPU/request") {
		t.Errorf("findings' costs: want 734.4 µs once, the GC's added to its title:\n%s", out)
	}
}

// TestVerdictExitStatus: a service perflab stopped answered its SIGTERM
// (143), which is no crash; one that died of itself is shown as it is.
func TestVerdictExitStatus(t *testing.T) {
	for _, stopped := range []bool{true, false} {
		r := sampleRun()
		code := 143
		r.Target.ExitCode, r.Target.StoppedByPerflab = &code, stopped
		var b bytes.Buffer
		if err := WriteVerdict(&b, r, "perflab-runs/"+r.ID); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(b.String(), "143, on perflab's stop after the window (not a crash)")
		if said != stopped || !strings.Contains(b.String(), "Exit status:") {
			t.Errorf("stopped by perflab %v: verdict says %q", stopped, grepLine(b.String(), "Exit status"))
		}
	}
}

// grepLine is the first line of s holding sub.
func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
