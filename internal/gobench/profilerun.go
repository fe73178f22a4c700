package gobench

import (
	"context"
	"fmt"
	"math"
	"time"

	"perflab/internal/runfmt"
)

// profile takes each benchmark's CPU and allocation profiles in runs of
// their own, into runDir/profiles, and fills bs (the side's benchmarks, in
// the collector's order). It stops at ctx's end; a profile that fails is
// a note on its benchmark, and makes the run degraded.
func (s *side) profile(ctx context.Context, f Flags, runDir string, bs []runfmt.Benchmark) (refs []runfmt.ProfileRef, failed []string, err error) {
	t0 := time.Now()
	defer func() { s.profileS += time.Since(t0).Seconds() }()
	for i, k := range s.col.order {
		if ctx.Err() != nil {
			return refs, failed, ctx.Err()
		}
		r, fl := profileBenchmark(ctx, f, runDir, s.col.byKey[k], &bs[i])
		refs, failed = append(refs, r...), append(failed, fl...)
	}
	return refs, failed, nil
}

// profileBenchmark takes one benchmark's profiles: CPU, then allocations
// unless it allocates nothing.
func profileBenchmark(ctx context.Context, f Flags, runDir string, t *timed, b *runfmt.Benchmark) (refs []runfmt.ProfileRef, failed []string) {
	abs, rel := profilePath(runDir, t.pkg, t.first, runfmt.ProfileCPU)
	ns, _ := b.Metric(runfmt.BenchUnitTime)
	cp, err := t.bin.cpuProfile(ctx, t.first, cpuIters(medianIters(t.iters), ns.Summary.Median), f, abs)
	if cp != nil {
		cp.File, b.CPU = rel, cp
		refs = append(refs, runfmt.ProfileRef{Type: runfmt.ProfileCPU, Source: runfmt.BenchProfileSource, File: rel})
	}
	failed = noteFailure(ctx, b, "CPU", err, failed)
	allocs, _ := b.Metric(runfmt.BenchUnitAllocs)
	if allocs.Summary.Median <= 0 {
		b.Notes = append(b.Notes, "no allocation profile: it allocates nothing (0 allocs/op)")
		return refs, failed
	}
	iters := max(1, min(medianIters(t.iters), int(maxRecorded/math.Ceil(allocs.Summary.Median))))
	abs, rel = profilePath(runDir, t.pkg, t.first, runfmt.ProfileAllocs)
	ap, err := t.bin.allocProfile(ctx, t.first, iters, f, abs)
	if ap != nil {
		ap.File, b.Allocs = rel, ap
		refs = append(refs, runfmt.ProfileRef{Type: runfmt.ProfileAllocs, Source: runfmt.BenchProfileSource, File: rel})
	}
	return refs, noteFailure(ctx, b, "allocation", err, failed)
}

// noteFailure records a profile that could not be taken (not for an
// interruption, which the run says as a whole).
func noteFailure(ctx context.Context, b *runfmt.Benchmark, kind string, err error, failed []string) []string {
	if err == nil || ctx.Err() != nil {
		return failed
	}
	msg := fmt.Sprintf("the %s profile of %s was not taken: %s", kind, b.Name, oneLine(err.Error()))
	b.Notes = append(b.Notes, msg)
	return append(failed, msg)
}

// cpuIters is how many iterations the CPU profile run makes, from the
// median b.N of the timed runs and their median ns/op: a quarter of one
// timed run (cpuShare), but at least cpuMinRun of work (enough samples at
// 100 Hz to name the hot lines) and at most a whole timed run.
func cpuIters(n int, nsPerOp float64) int {
	want := n / cpuShare
	if nsPerOp > 0 {
		want = max(want, int(math.Ceil(float64(cpuMinRun.Nanoseconds())/nsPerOp)))
	}
	return max(1, min(n, want))
}
