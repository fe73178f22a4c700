package walltime

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestPlaceRunningSplitsByTheSamples: the running time of the request
// goroutines is split over their CPU samples' stacks in proportion, all of
// it, the rounding remainder to the stack with most samples, even for a
// long trace of many cores (64 cores for 10 minutes: 3.8e13 ns over 3.8e6
// samples, whose product overflows an int64).
func TestPlaceRunningSplitsByTheSamples(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running int64
		counts  map[int32]int
		want    map[int32]int64
	}{
		{"even", 1000, map[int32]int{1: 10, 2: 30}, map[int32]int64{1: 250, 2: 750}},
		{"remainder", 1000, map[int32]int{1: 10, 2: 10, 3: 10}, map[int32]int64{1: 334, 2: 333, 3: 333}},
		{"64 cores for 10 minutes", 64 * 600e9, map[int32]int{1: 2_880_000, 2: 960_000}, map[int32]int64{1: 28_800e9, 2: 9_600e9}},
	} {
		a := newAnalyzer()
		a.samples[&gor{class: classServing}] = tc.counts
		a.acc[accKey{stack: 0, wait: runfmt.WaitCPU}] = tc.running
		a.placeRunning()
		var sum int64
		for st, want := range tc.want {
			if got := a.acc[accKey{stack: st, wait: runfmt.WaitCPU}]; got != want {
				t.Errorf("%s: stack %d running %d ns; want %d", tc.name, st, got, want)
			}
		}
		for k, ns := range a.acc {
			sum += ns
			if k.stack == 0 {
				t.Errorf("%s: %d ns left at the stopping stack", tc.name, ns)
			}
		}
		if sum != tc.running {
			t.Errorf("%s: %d ns placed; want all %d", tc.name, sum, tc.running)
		}
	}
}
