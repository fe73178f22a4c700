package profiling

import (
	"maps"
	"slices"
	"testing"
)

func TestIdleUnderLoad(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after map[int]float64
		idle          []int
	}{
		// gunicorn -w 2: the master waits while its workers work; a
		// worker that got one request is not idle.
		{"master", map[int]float64{1: 0.50, 2: 1.00, 3: 1.00}, map[int]float64{1: 0.50, 2: 2.10, 3: 1.03}, []int{1}},
		// A worker forked during the warm-up counts all its CPU.
		{"new worker", map[int]float64{1: 0.50, 2: 1.00}, map[int]float64{1: 0.51, 2: 2.00, 4: 0.30}, []int{1}},
		// Too little CPU in all to tell: every process is sampled.
		{"light load", map[int]float64{1: 0.50, 2: 1.00}, map[int]float64{1: 0.50, 2: 1.05}, nil},
		// A process that used 20 ms or more is not idle, whatever its share.
		{"busy enough", map[int]float64{1: 0, 2: 0}, map[int]float64{1: 0.03, 2: 9}, nil},
	} {
		got := idleUnderLoad(tc.before, tc.after)
		if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, tc.idle) {
			t.Errorf("%s: idle %v; want %v", tc.name, ids, tc.idle)
		}
	}
}
