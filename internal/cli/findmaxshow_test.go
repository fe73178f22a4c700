package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestRunsShowPrintsTheFindMaxSearch: `runs show` of a find-max run
// prints its search (every step, the highest rate) as the run printed it.
func TestRunsShowPrintsTheFindMaxSearch(t *testing.T) {
	root := t.TempDir()
	id := writeTestRun(t, root, "api-findmax", "", 0, 2.5, 298)
	dir := filepath.Join(root, id)
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.FindMax = &runfmt.FindMax{SLO: "p99<100ms", StepS: 5, MaxRPS: 300, CPUMsPerRequest: 2.5, Steps: []runfmt.FindMaxStep{
		{Rate: 300, RPS: 298, P99Ms: 40, Requests: 1500, CPUCores: 0.75, CPUMsPerRequest: 2.5, Pass: true},
		{Rate: 450, RPS: 380, P99Ms: 900, Requests: 1900, Reason: "p99 900.00 ms > 100 ms"},
	}}
	if err := runfmt.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runMain(t, "runs", "show", "--dir", root, id)
	if code != 0 {
		t.Fatalf("runs show: exit %d: %s", code, errb)
	}
	for _, want := range []string{"Searching the highest rate within p99<100ms (steps of 5s)", "fail: p99 900.00 ms > 100 ms", "Highest sustainable rate: 300 requests/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show of a find-max run lacks %q:\n%s", want, out)
		}
	}
}
