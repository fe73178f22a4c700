package stats

import (
	"math"
	"slices"
	"testing"
)

func TestSummarizeKnownData(t *testing.T) {
	values := []float64{5, 1, 4, 2, 3, 9, 7, 8, 6}
	orig := slices.Clone(values)
	s := Summarize(values)
	if !slices.Equal(values, orig) {
		t.Errorf("Summarize mutated its input: %v, want %v", values, orig)
	}
	if s.Median != 5 || s.N != 9 {
		t.Errorf("Summarize(%v) = median %v n %d; want 5, 9", orig, s.Median, s.N)
	}
	if !(s.Lo <= s.Median && s.Median <= s.Hi) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		t.Errorf("Summarize(%v): interval [%v, %v] should be finite and contain the median", orig, s.Lo, s.Hi)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("Summarize(%v) warnings = %q; want none", orig, s.Warnings)
	}
}

func TestSummarizeSmallSampleWarns(t *testing.T) {
	s := Summarize([]float64{10, 12})
	if s.Median != 11 {
		t.Errorf("median of {10,12} = %v; want 11", s.Median)
	}
	if !math.IsInf(s.Lo, -1) || !math.IsInf(s.Hi, 1) || len(s.Warnings) == 0 {
		t.Errorf("two values: got [%v, %v] warnings %q; want ±Inf and a warning", s.Lo, s.Hi, s.Warnings)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	s := Summarize(nil)
	if !math.IsNaN(s.Median) || s.N != 0 || len(s.Warnings) != 1 {
		t.Errorf("Summarize(nil) = %+v; want NaN median, n 0, one warning", s)
	}
}

func TestRecordLeavesOutUnknownBounds(t *testing.T) {
	r := Summarize([]float64{5, 1, 4, 2, 3, 9, 7, 8, 6}).Record()
	if r.Median != 5 || r.N != 9 || r.CILow == nil || r.CIHigh == nil || *r.CILow > 5 || *r.CIHigh < 5 {
		t.Errorf("Record of nine values = %+v; want median 5, n 9 and both bounds around it", r)
	}
	for _, vs := range [][]float64{{10, 12}, nil} {
		if r := Summarize(vs).Record(); r.CILow != nil || r.CIHigh != nil {
			t.Errorf("Record of %v has bounds %v, %v; want none (null)", vs, r.CILow, r.CIHigh)
		}
	}
}
