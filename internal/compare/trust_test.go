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
	d.Run.Status, d.Run.DegradedReasons = runfmt.StatusDegraded, []string{"the CPU profile failed: cpu profiling already in use"}
	res, err := Compare(base, []store.Entry{d}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if !hasWarning(c, "2 of 3 base runs were measured on a noisy machine (other processes used up to 1.50 cores): their latency and throughput are unreliable") {
		t.Errorf("warnings %q; want the noisy base runs counted once", c.Warnings)
	}
	if !hasWarning(c, "is degraded (the CPU profile failed: cpu profiling already in use)") {
		t.Errorf("warnings %q; want the degraded run named", c.Warnings)
	}
}
