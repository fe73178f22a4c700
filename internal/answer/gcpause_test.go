package answer

import (
	"math"
	"testing"

	"perflab/internal/runfmt"
)

// TestGCPausesChargedByBytes: a service with CPU to spare whose requests
// wait for the collector: the waits go, like the collector's CPU, to the
// finding whose culprit allocates the bytes, which ranks above the
// gc-pause finding; that keeps what no culprit allocates.
func TestGCPausesChargedByBytes(t *testing.T) {
	r := serviceRun(0.3, 1, 20, 0.8, map[runfmt.LedgerPart]float64{
		runfmt.PartCPU: 0.8, runfmt.PartGC: 5, runfmt.PartRunnable: 4,
	},
		waitFinding(runfmt.FindingGCPause, 5000),
		cpuFinding(runfmt.FindingCompression, "main.handler.func2", 250),
		cpuFinding(runfmt.FindingConstructor, "main.(*gzipWriter).Write", 170),
	)
	r.Allocs = []runfmt.AllocFunc{
		{Function: "main.(*gzipWriter).Write", UserCode: true, BytesPerRequest: 784e3},
		{Function: "main.handler.func2", UserCode: true, BytesPerRequest: 16e3},
	}
	r.AllocBytesPerRequest = 1000e3 // 200 kB a request in code that is not the user's
	Decide(r)
	if got := r.Answer.First(); got.Kind.CPU() {
		t.Fatalf("limit %s; want one that is not the CPU (0.3 of 1 core)", got.Kind)
	}
	if r.Findings[0].Kind != runfmt.FindingConstructor {
		t.Fatalf("ranked %v; want the constructor, whose allocations cause the pauses, first", kindsOf(r.Findings))
	}
	if got, want := r.Findings[0].Payoff[runfmt.FigLatency], 170+0.784*5000; math.Abs(got-want) > 1e-6 {
		t.Errorf("constructor's latency payoff %.1f µs; want %.1f (its CPU and 78.4%% of the pauses)", got, want)
	}
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingGCPause {
			if got, want := f.Payoff[runfmt.FigLatency], 0.2*5000; math.Abs(got-want) > 1e-6 {
				t.Errorf("gc-pause payoff %.1f µs; want %.1f (what no culprit allocates)", got, want)
			}
		}
	}
}
