package compare

import (
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// Runs measured on a noisy machine, or degraded, are compared with a
// warning saying what that leaves valid.
func TestCompareNoisyAndDegradedRuns(t *testing.T) {
	root := t.TempDir()
	var base []store.Entry
	for i := range 3 {
		e := writeRun(t, root, i, buggy(i))
		if i < 2 {
			e.Run.Quality = &runfmt.Quality{Verdict: runfmt.QualityNoisy, OtherCores: 0.5 + float64(i)}
		}
		base = append(base, e)
	}
	d := writeRun(t, root, 3, fixed(0))
	d.Run.Status, d.Run.Degradations = runfmt.StatusDegraded, []runfmt.Degradation{{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: "cpu profiling already in use"}}
	res, err := Compare(base, []store.Entry{d}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if !hasWarning(c, "2 of 3 base runs were measured on a noisy machine (other processes used up to 1.50 cores): their latency and throughput are unreliable") {
		t.Errorf("warnings %q; want the noisy base runs counted once", c.Warnings)
	}
	if !hasWarning(c, "is degraded (cpu profile failed: cpu profiling already in use)") {
		t.Errorf("warnings %q; want the degraded run named", c.Warnings)
	}
}

// A run without a CPU per request is named in the comparison's warning,
// with the reason the run gave.
func TestCompareSaysWhyARunHasNoCPUPerRequest(t *testing.T) {
	root := t.TempDir()
	base, new := group5(t, root, buggy, 0), group5(t, root, fixed, 10)
	why := "not given: other clients reached the service in the window (1 connection(s) that are not perflab's, from 127.0.0.1), so its CPU is not this load's alone"
	base[3].Run.Target.CPUMsPerRequest, base[3].Run.Target.CPUPerRequestNote = 0, why
	new[1].Run.Target.CPUMsPerRequest = 0 // no reason given
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "cpu_per_request: measured by 4 of 5 base and 4 of 5 new runs (" + base[3].Run.ID + ": " + why + ")"
	if !hasWarning(res.Comparison, want) {
		t.Errorf("warnings %q; want %q", res.Comparison.Warnings, want)
	}
}
