package profiling

import (
	"testing"
	"time"
)

func TestTraceSlice(t *testing.T) {
	for _, tc := range []struct {
		window, offset time.Duration
		whole          bool
		secs           int
	}{
		{3 * time.Second, time.Second, false, 1},
		{10 * time.Second, 4 * time.Second, false, 2},
		{5 * time.Second, 1500 * time.Millisecond, false, 2},
		{6 * time.Second, 2 * time.Second, false, 2},
		{time.Second, 0, false, 1},
		{10 * time.Second, 0, true, 10},
	} {
		off, secs := traceSlice(tc.window, tc.whole)
		if off != tc.offset || secs != tc.secs {
			t.Errorf("traceSlice(%s, whole %v) = %s, %d s; want %s, %d s", tc.window, tc.whole, off, secs, tc.offset, tc.secs)
		}
	}
}
