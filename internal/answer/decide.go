package answer

import (
	"math"

	"perflab/internal/runfmt"
)

// Decide decides what limits r's service, sets each finding's payoff and
// ranks r's findings by it (r.Answer, r.Findings). It reads r's figures
// only, so a stored run can be decided again.
func Decide(r *runfmt.Run) {
	if r.Batch != nil || r.Bench != nil || r.Load == nil {
		return // no requests: a batch program's findings are its own
	}
	f := gather(r)
	a := &runfmt.Answer{Limits: limits(r, f)}
	payoffs(r, f, a.First())
	rankFindings(r, a.First())
	a.Doubts = doubts(r, f, a.First())
	r.Answer = a
}

// Thresholds of the doubts.
const (
	// unexplainedDoubt is the share of the mean latency in no part of the
	// time account from which which wait limits it is in doubt.
	unexplainedDoubt = 0.3
	// clientDoubt is the share of the mean latency the generator's row
	// (a bound) holds from which it puts the answer in doubt.
	clientDoubt = 0.25
	// rankSigmas is how many standard errors of sampling apart the first
	// two CPU findings must be for their order to be certain.
	rankSigmas = 2.0
)

// doubts are what kept the answer from being certain.
func doubts(r *runfmt.Run, f facts, limit runfmt.Limit) []runfmt.Doubt {
	var out []runfmt.Doubt
	add := func(k runfmt.DoubtKind, figs runfmt.Figures) { out = append(out, runfmt.Doubt{Kind: k, Figures: figs}) }
	if q := r.Quality; q.Noisy() && limit.Kind != runfmt.LimitCPUBudget && limit.Kind != runfmt.LimitStuck {
		// A budget's quota used up is measured by its cgroup whatever
		// else runs; another limit may be the other processes'.
		add(runfmt.DoubtNoisy, runfmt.Figures{}.With(runfmt.FigOtherCores, q.OtherCores).With(runfmt.FigHostCores, float64(q.HostCores)))
	}
	if f.cpuMs <= 0 {
		add(runfmt.DoubtNoCPU, nil)
	}
	if r.Ledger == nil || r.Ledger.Time == nil {
		add(runfmt.DoubtNoTimeSplit, nil)
	} else if f.latencyMs > 0 && f.unexplained >= unexplainedDoubt*f.latencyMs {
		add(runfmt.DoubtUnexplained, runfmt.Figures{}.With(runfmt.FigShare, f.unexplained/f.latencyMs))
	}
	if _, share := f.row(runfmt.PartGenerator); share >= clientDoubt {
		add(runfmt.DoubtClient, runfmt.Figures{}.With(runfmt.FigShare, share))
	}
	if p := r.Profiling; !p.Explains() || cpuSamples(r) == 0 {
		add(runfmt.DoubtNoProfile, nil)
	} else if p != nil && OverCounted(p.Coverage, 1) {
		add(runfmt.DoubtOverCounted, runfmt.Figures{}.With(runfmt.FigOverCounted, p.Coverage))
	} else if n := cpuSamples(r); n > 0 && !rankStable(r, f, n) {
		add(runfmt.DoubtFewSamples, runfmt.Figures{}.With(runfmt.FigCount, float64(n)))
	}
	return out
}

// cpuSamples is the CPU profile's sample count; 0 without one.
func cpuSamples(r *runfmt.Run) int64 {
	for _, p := range r.Profiles {
		if p.Type == runfmt.ProfileCPU {
			return p.Samples
		}
	}
	return 0
}

// rankStable says the first two findings that cost CPU are further apart
// than n samples can blur: their shares of the CPU differ by rankSigmas
// standard errors of their difference (two counts from one profile).
func rankStable(r *runfmt.Run, f facts, n int64) bool {
	if f.cpuMs <= 0 {
		return true
	}
	var shares []float64
	for _, fd := range r.Findings {
		if us := fd.Figures[runfmt.FigCPUPerRequest]; us > 0 && fd.ConsequenceOf == "" {
			shares = append(shares, us/(1000*f.cpuMs))
		}
		if len(shares) == 2 {
			break
		}
	}
	if len(shares) < 2 {
		return true
	}
	p1, p2 := shares[0], shares[1]
	sigma := math.Sqrt((p1 + p2 - (p1-p2)*(p1-p2)) / float64(n))
	return math.Abs(p1-p2) >= rankSigmas*sigma
}
