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
// within a tenth.
//
// A profiler that reads stacks at every tick (py-spy, rbspy) counts a
// thread waiting for a CPU as working: its samples stand for more than the
// CPU measured, and the shares are scaled down to it alike. But the waits
// fall where the scheduler preempts, on the requests long enough to use up
// their time slice, not on the short ones, so beside long requests a
// short one's figure reads low by about the profile's excess over the CPU
// measured, which can pass its count's margin. Which samples were waits
// is not in the profile, so a handler's figure is only known to within
// that excess either way (its figure at most coverage× when none of the waits
// were its): the margin combines it with the count's.

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

// waitMargin is the relative margin of every handler's figure for the
// waits a profile standing for coverage× the CPU measured counted as work:
// its excess over the CPU, 0 when it has none.
func waitMargin(coverage float64) float64 {
	return max(coverage-1, 0)
}

// handlerMargin is the 95% margin, relative to the estimate, of a share
// read from k of n samples with the waits' margin wait beside it: the two
// are apart, and combine as independent errors do. 0 when the profile
// does not count its samples (n 0): no margin is known.
func handlerMargin(k, n int64, wait float64) float64 {
	if n <= 0 {
		return 0
	}
	return math.Hypot(samplingMargin(k, n), wait)
}

// samplingMargin is the 95% margin, relative to the estimate, of a share
// read from k of n samples; 0 when there are none to read it from.
func samplingMargin(k, n int64) float64 {
	if k <= 0 || n <= 0 || k > n {
		return 0
	}
	return z95 * math.Sqrt((1-float64(k)/float64(n))/float64(k))
}
