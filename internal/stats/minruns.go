package stats

import "math"

// tooFew reports whether samples of sizes n1 and n2 can never reach a
// p-value <= Alpha in the two-sided Mann–Whitney U test. benchmath only
// warns for equal sizes (its table of minimum p-values is per n and
// unexported), so the exact bound is computed here: the most extreme
// outcome, every value of one sample below every value of the other, has
// probability 1/C(n1+n2, n1) on each side, so the smallest two-sided p is
// 2/C(n1+n2, n1).
func tooFew(n1, n2 int) bool {
	if n1 == 0 || n2 == 0 {
		return true
	}
	return minP(n1, n2) > Alpha
}

func minP(n1, n2 int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	logChoose := lg(n1+n2) - lg(n1) - lg(n2)
	return math.Min(1, 2*math.Exp(-logChoose))
}

// minRunsPerSide is the smallest n for which n runs on each side can give
// a significant result (4 at alpha 0.05: 2/C(8,4) = 0.029).
func minRunsPerSide() int {
	n := 1
	for tooFew(n, n) {
		n++
	}
	return n
}

// MinRunsForInterval is the smallest sample that has a confidence interval
// at the Confidence level: benchmath's interval is between two order
// statistics of the sample, which a small one does not have (6 at 95%).
var MinRunsForInterval = func() int {
	for n := 1; n < 100; n++ {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = float64(i)
		}
		if s := Summarize(vs); !math.IsInf(s.Lo, 0) && !math.IsNaN(s.Lo) {
			return n
		}
	}
	return 0
}()
