package cli

import (
	"testing"
	"time"

	"perflab/internal/lab"
	"perflab/internal/load"
	"perflab/internal/runfmt"
)

// TestProgressAndRunLinesPrintThroughUnits: the live progress line and
// ab's line per finished run print their times as every report does.
func TestProgressAndRunLinesPrintThroughUnits(t *testing.T) {
	for _, tc := range []struct {
		p    load.Progress
		want string
	}{
		{load.Progress{Elapsed: 2345 * time.Millisecond, Planned: 10 * time.Second, Requests: 1200, Errors: 3, P99ms: 12.4, InFlight: 8},
			"2.30 s / 10.00 s  1200 requests  600 req/s  3 errors  p99 12.40 ms (last second)  8 in flight"},
		{load.Progress{Elapsed: 500 * time.Millisecond, Requests: 10, Count: 100, P99ms: 0.25},
			"500.00 ms (10/100 requests)  10 requests  600 req/s  0 errors  p99 250.0 µs (last second)"},
		{load.Progress{Waiting: 3420 * time.Millisecond}, "waiting for --start-at: the load starts in 3.40 s"},
	} {
		if got := formatProgress(tc.p, 600); got != tc.want {
			t.Errorf("formatProgress(%+v) = %q; want %q", tc.p, got, tc.want)
		}
	}
	env, _, errb := testEnv()
	r := &runfmt.Run{Load: &runfmt.LoadResult{RPS: 812.4, Latency: runfmt.Latency{P99: 4.5}}, Target: &runfmt.TargetSummary{CPUMsPerRequest: 0.123}}
	runLine(env, 6)("base", 1, &lab.Result{Run: r, Dir: "runs/x"}, nil)
	if want := "perflab: base run 2/6: 812 req/s, p99 4.50 ms, 123.0 µs CPU/request (runs/x)\n"; errb.String() != want {
		t.Errorf("run line %q; want %q", errb.String(), want)
	}
}
