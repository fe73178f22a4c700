package report

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// findMaxRun is a find-max run: three steps, the second the best.
func findMaxRun() *runfmt.Run {
	r := sampleRun()
	r.FindMax = &runfmt.FindMax{SLO: "p99<100ms,errors<1%", StepS: 5, MaxRPS: 300, CPUMsPerRequest: 2.5, Steps: []runfmt.FindMaxStep{
		{Rate: 200, RPS: 199, P99Ms: 12, Requests: 1000, CPUCores: 0.5, CPUMsPerRequest: 2.5, Pass: true, Measurement: "clean"},
		{Rate: 300, RPS: 298, P99Ms: 40, Requests: 1500, CPUCores: 0.75, CPUMsPerRequest: 2.5, Pass: true, Measurement: "clean"},
		{Rate: 450, RPS: 380, P99Ms: 900, Requests: 1900, Errors: 40, CPUCores: 1, CPUMsPerRequest: 2.6, Reason: "p99 900.00 ms > 100 ms", Measurement: "clean"},
	}}
	return r
}

// TestFindMaxShownWhereTheRunIs: report.html and the text of a stored
// find-max run show its search: the highest rate, then every step, the
// best one marked.
func TestFindMaxShownWhereTheRunIs(t *testing.T) {
	r := findMaxRun()
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<section id="find-max">`, "Highest sustainable rate: 300 requests/s within p99&lt;100ms,errors&lt;1%",
		`<tr class="best"><td class="num">300/s</td>`, "fail: p99 900.00 ms &gt; 100 ms", `<a href="#find-max">find-max</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html of a find-max run lacks %q", want)
		}
	}
	b.Reset()
	if err := WriteFindMax(&b, r, "/runs/x", false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"Searching the highest rate within p99<100ms,errors<1% (steps of 5s)", "450/s", "fail: p99 900.00 ms > 100 ms",
		"Highest sustainable rate: 300 requests/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("the find-max text lacks %q:\n%s", want, text)
		}
	}
	r.FindMax = nil
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="find-max"`) {
		t.Error("a run without a search has a find-max section")
	}
}
