package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompareIdenticalNotSignificant(t *testing.T) {
	a := []float64{10, 11, 12, 13, 14}
	c := Compare(a, slices.Clone(a))
	if c.Significant || c.TooFew || c.P < 0.9 || c.DeltaPct != 0 {
		t.Errorf("Compare(a, a) = %+v; want p≈1, not significant, delta 0", c)
	}
}

func TestCompareSeparatedSignificant(t *testing.T) {
	base := []float64{10, 10.2, 9.9, 10.1, 10.05}
	new := []float64{12, 12.1, 11.9, 12.3, 12.2}
	baseOrig := slices.Clone(base)
	c := Compare(base, new)
	if !slices.Equal(base, baseOrig) {
		t.Errorf("Compare mutated base: %v", base)
	}
	if !c.Significant || math.Abs(c.P-0.00794) > 0.0005 {
		t.Errorf("Compare(%v, %v): p = %v significant %v; want p≈0.008, significant", base, new, c.P, c.Significant)
	}
	if want := (12.1/10.05 - 1) * 100; math.Abs(c.DeltaPct-want) > 1e-9 {
		t.Errorf("DeltaPct = %v; want %v", c.DeltaPct, want)
	}
	if !c.Significant || c.TooFew {
		t.Errorf("Compare = %+v; want a significant change", c)
	}
	if c := Compare(new, base); math.Abs(c.DeltaPct-(10.05/12.1-1)*100) > 1e-9 {
		t.Errorf("reverse DeltaPct = %v; want %v", c.DeltaPct, (10.05/12.1-1)*100)
	}
}

func TestCompareTooFew(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		tooFew bool
	}{
		{1, 1, true}, {3, 3, true}, {4, 4, false}, {1, 30, true}, {2, 10, false}, {0, 5, true},
	} {
		base := spread(tc.n1, 10)
		c := Compare(base, spread(tc.n2, 100))
		if c.TooFew != tc.tooFew {
			t.Errorf("Compare(%d vs %d runs).TooFew = %v; want %v", tc.n1, tc.n2, c.TooFew, tc.tooFew)
		}
		if tc.tooFew && c.Significant {
			t.Errorf("%d vs %d runs: significant; want too few runs for a verdict", tc.n1, tc.n2)
		}
		if !tc.tooFew && !c.Significant {
			t.Errorf("%d vs %d runs far apart: p = %v, want significant", tc.n1, tc.n2, c.P)
		}
	}
	c := Compare([]float64{1}, []float64{2})
	want := "need >= 4 runs per side for a confident verdict (have 1 and 1)"
	if !slices.Contains(c.Warnings, want) {
		t.Errorf("1 vs 1 warnings = %q; want %q", c.Warnings, want)
	}
}

func spread(n int, at float64) []float64 {
	var v []float64
	for i := range n {
		v = append(v, at+float64(i)*0.01)
	}
	return v
}

// noisy draws n values around 100 with 10% log-normal noise and an
// occasional outlier, like run-to-run service measurements.
func noisy(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 100 * math.Exp(0.1*rng.NormFloat64())
		if rng.IntN(10) == 0 {
			v[i] *= 1.5
		}
	}
	return v
}

// TestCompareAAFalsePositiveRate checks that comparing two samples of the
// same distribution is rarely called significant: at alpha 0.05 the rate
// must stay near 5% (asserted <= 7% to leave room for sampling error).
func TestCompareAAFalsePositiveRate(t *testing.T) {
	const trials = 2000
	rng := rand.New(rand.NewPCG(42, 7))
	sig := 0
	for range trials {
		if Compare(noisy(rng, 5), noisy(rng, 5)).Significant {
			sig++
		}
	}
	rate := float64(sig) / trials
	t.Logf("A/A: %d of %d significant (%.1f%%)", sig, trials, 100*rate)
	if rate > 0.07 {
		t.Errorf("A/A false positive rate %.1f%%; want <= 7%%", 100*rate)
	}
}

func TestCompareWarningsNamed(t *testing.T) {
	c := Compare([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1})
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "base median is 0") }) {
		t.Errorf("warnings %q; want one about a zero base median", c.Warnings)
	}
	if c.DeltaPct != 0 {
		t.Errorf("zero base: delta %v; want 0 (no ratio to a zero median)", c.DeltaPct)
	}
}
