package walltime

import (
	"os"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// TestFirstGCWorkersAreNotRequests reads a trace of TestPlantedWaits/sleep
// taken beside two CPU-bound processes (testdata/first-gc.trace: 80
// requests to a handler that sleeps 5 ms), in which the process's first GC
// cycle began: a request goroutine's allocation started the GC's two mark
// workers, which then stayed parked for the rest of the trace. Their
// parking is the runtime's, not the requests' sync wait (counted as the
// requests', it would be more per request than the planted sleep).
func TestFirstGCWorkersAreNotRequests(t *testing.T) {
	data, err := os.ReadFile("testdata/first-gc.trace")
	if err != nil {
		t.Fatal(err)
	}
	got := perReq(analyse(t, data), 80)
	if sync := got[runfmt.WaitSync]; sync > 100*time.Microsecond {
		t.Errorf("sync wait %v per request; want none (the GC's mark workers are not requests)", sync)
	}
	if sleep := got[runfmt.WaitSleep]; sleep < 5*time.Millisecond || sleep > 6*time.Millisecond {
		t.Errorf("sleep %v per request; want the planted 5 ms and a little", sleep)
	}
}
