package analysis

import (
	"math"

	"perflab/internal/runfmt"
)

// The margin of a handler's CPU from its count of samples. A profile is a
// sample of where the CPU went: a handler that holds k of the profile's n
// samples has its share read to within the spread of that count, which
// for independent samples is binomial, sqrt(k(1-k/n)). A handler of 40
// samples is read to within a third either way (95%); one of 400, to
// within a tenth. The margin says only that: a profiler's own bias (one
// that counts a thread waiting for a CPU as working) is not in it.

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.96

// samplesCount is the index of the profile's count of samples, -1 when
// it has none (a profile whose only value is a time, say).
func samplesCount(c *Costs) int {
	for i, st := range c.set.SampleTypes {
		if st.Type == runfmt.SampleCount && st.Unit == runfmt.SampleCountUnit {
			return i
		}
	}
	return -1
}

// handlerSamples counts the samples of the stacks charged to each handler
// whole (a partial stack shared out in proportion is left out) and of the
// whole profile; nil when the profile does not count its samples.
func handlerSamples(c *Costs, handlerOf []int32) (perHandler map[int32]int64, total int64) {
	ci := samplesCount(c)
	if ci < 0 {
		return nil, 0
	}
	perHandler = map[int32]int64{}
	for si, f := range handlerOf {
		n := c.set.Value(si, ci)
		total += n
		if f >= 0 {
			perHandler[f] += n
		}
	}
	return perHandler, total
}

// samplingMargin is the 95% margin, relative to the estimate, of a share
// read from k of n samples; 0 when there are none to read it from.
func samplingMargin(k, n int64) float64 {
	if k <= 0 || n <= 0 || k > n {
		return 0
	}
	return z95 * math.Sqrt((1-float64(k)/float64(n))/float64(k))
}
