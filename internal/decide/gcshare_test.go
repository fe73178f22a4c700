package decide

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestDistrustGCTrace: without a CPU profile, gctrace's share of a service
// that waited for a CPU is left unknown, with the reason; a service that
// did not wait keeps it, and a CPU profile's share is kept always.
func TestDistrustGCTrace(t *testing.T) {
	throttled := &runfmt.TargetSummary{CPUSeconds: 2, ThrottledPct: 60}
	runnable := &runfmt.TargetSummary{CPUSeconds: 2, RunqueueWaitSeconds: 0.5}
	calm := &runfmt.TargetSummary{CPUSeconds: 2, ThrottledPct: 1, RunqueueWaitSeconds: 0.05}
	for _, tc := range []struct {
		name   string
		source string
		target *runfmt.TargetSummary
		kept   bool
	}{
		{"gctrace, throttled", "gctrace", throttled, false},
		{"gctrace, runnable", "gctrace", runnable, false},
		{"gctrace, no wait", "gctrace", calm, true},
		{"cpu profile, throttled", "cpu-profile", throttled, true},
	} {
		gc := runfmt.GCSummary{CPUPct: 65, CPUPctSource: tc.source}
		distrustGCTrace(&gc, tc.target)
		if kept := gc.CPUPct == 65 && gc.CPUPctNote == ""; kept != tc.kept {
			t.Errorf("%s: %+v; want the share kept %v", tc.name, gc, tc.kept)
		}
		if !tc.kept && !strings.Contains(gc.CPUPctNote, "gctrace counts 65%") {
			t.Errorf("%s: note %q; want gctrace's figure and why it is not the share", tc.name, gc.CPUPctNote)
		}
	}
}
