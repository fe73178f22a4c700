package service

import (
	"math"
	"runtime"
	"slices"
	"time"

	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

// Thresholds of the CPU-bound verdict.
const (
	// boundOfLimit: mean cores at or above 90% of the quota, and
	// throttled in a notable share of periods (answer.ThrottledNotable).
	boundOfLimit = 0.90
	// boundOfHost: without a quota, mean cores at or above 95% of the host.
	boundOfHost = 0.95
)

// Window summarises the samples taken between from and to (inclusive):
// mean cores (CPU seconds over wall time), p95 and max of the per-interval
// cores, CPU seconds, peak RSS, memory and threads, the throttled share of
// CFS periods, and whether the service was CPU-bound (or too few samples
// to judge). limitCores is the quota (0: none); hostCores 0 means this host's.
// PIDs, MemoryLimitBytes, CPUMsPerRequest and ExitCode are left to the
// caller.
func Window(samples []Sample, from, to time.Time, limitCores float64, hostCores int) runfmt.TargetSummary {
	if hostCores <= 0 {
		hostCores = runtime.NumCPU()
	}
	var w []Sample
	for _, s := range samples {
		if !s.T.Before(from) && !s.T.After(to) {
			w = append(w, s)
		}
	}
	sum := runfmt.TargetSummary{CPULimitCores: limitCores, HostCores: hostCores, Source: "proc"}
	sum.Samples = len(w)
	if len(w) > 0 {
		sum.Source = w[len(w)-1].Source
	}
	for _, s := range w {
		sum.RSSMaxBytes = max(sum.RSSMaxBytes, s.RSSBytes)
		sum.MemoryMaxBytes = max(sum.MemoryMaxBytes, s.MemoryBytes)
		sum.ThreadsMax = max(sum.ThreadsMax, s.Threads)
	}
	// CPU over exactly [from, to], interpolated between the samples around
	// each end: the samples inside the window alone miss up to one sampling
	// interval at each end, while the requests counted cover all of it.
	var lo, hi time.Time
	if len(samples) > 0 {
		lo, hi = maxTime(from, samples[0].T), minTime(to, samples[len(samples)-1].T)
	}
	wall := hi.Sub(lo).Seconds()
	if len(samples) < 2 || wall <= 0 {
		sum.CPUUnjudged = true
		return sum
	}
	sum.CPUSeconds = max(cpuAt(samples, hi)-cpuAt(samples, lo), 0)
	sum.CPUCoresMean = sum.CPUSeconds / wall
	sum.RunqueueWaitSeconds = max(valueAt(samples, hi, runqueue)-valueAt(samples, lo, runqueue), 0)
	sum.CPUCoresP95, sum.CPUCoresMax = sum.CPUCoresMean, sum.CPUCoresMean
	if len(w) < 2 {
		sum.CPUBound = bound(sum.CPUCoresMean, 0, limitCores, hostCores)
		return sum
	}
	first, last := w[0], w[len(w)-1]
	cores := intervalCores(w)
	sum.CPUCoresP95 = percentile(cores, 0.95)
	sum.CPUCoresMax = slices.Max(cores)
	if periods := last.Periods - first.Periods; periods > 0 {
		sum.ThrottledPct = 100 * float64(max(last.ThrottledPeriods-first.ThrottledPeriods, 0)) / float64(periods)
	}
	sum.ThrottledSeconds = max(last.ThrottledSeconds-first.ThrottledSeconds, 0)
	sum.CPUBound = bound(sum.CPUCoresMean, sum.ThrottledPct, limitCores, hostCores)
	return sum
}

func cpuAt(samples []Sample, t time.Time) float64 { return valueAt(samples, t, cpuSeconds) }

func cpuSeconds(s Sample) float64 { return s.CPUSeconds }
func runqueue(s Sample) float64   { return s.RunqueueWaitSeconds }

// valueAt is a cumulative counter of the samples at t, interpolated linearly
// between the samples around it (samples are in time order).
func valueAt(samples []Sample, t time.Time, v func(Sample) float64) float64 {
	return interpolate(samples, t, func(s Sample) time.Time { return s.T }, v)
}

// interpolate is valueAt for any time-ordered samples.
func interpolate[S any](samples []S, t time.Time, at func(S) time.Time, v func(S) float64) float64 {
	i, _ := slices.BinarySearchFunc(samples, t, func(s S, t time.Time) int { return at(s).Compare(t) })
	switch {
	case i == 0:
		return v(samples[0])
	case i == len(samples):
		return v(samples[i-1])
	}
	a, b := samples[i-1], samples[i]
	span := at(b).Sub(at(a)).Seconds()
	if span <= 0 {
		return v(b)
	}
	return v(a) + (v(b)-v(a))*t.Sub(at(a)).Seconds()/span
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// intervalCores is the cores used between consecutive samples.
func intervalCores(w []Sample) []float64 {
	out := make([]float64, 0, len(w)-1)
	for i := 1; i < len(w); i++ {
		dt := w[i].T.Sub(w[i-1].T).Seconds()
		if dt <= 0 {
			continue
		}
		out = append(out, max(w[i].CPUSeconds-w[i-1].CPUSeconds, 0)/dt)
	}
	if len(out) == 0 {
		out = append(out, 0)
	}
	return out
}

// percentile is the nearest-rank percentile of v (q in (0,1]).
func percentile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(min(i, len(s)-1), 0)]
}

// bound says whether a service that used mean cores on average, throttled
// in throttledPct of its periods, ran at its CPU budget limit, or with no
// budget (0) at the host's cores.
func bound(mean, throttledPct, limit float64, host int) bool {
	if limit > 0 {
		return mean >= boundOfLimit*limit && answer.ThrottledNotable(throttledPct)
	}
	return mean >= boundOfHost*float64(host)
}
