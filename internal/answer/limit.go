package answer

import (
	"perflab/internal/runfmt"
)

// Thresholds of the limits.
const (
	// budgetUsed is the share of its quota from which a service's CPU
	// budget limits it: queueing then grows behind its own CPU.
	budgetUsed = 0.9
	// hostUsed is the share of the machine's cores from which the host's
	// CPU limits a service without a budget.
	hostUsed = 0.9
	// waitLimits is the share of the mean latency from which a wait
	// limits the service; secondLimit the share from which a wait is
	// named as a second limit beside the CPU.
	waitLimits  = 0.3
	secondLimit = 0.25
	// runnableLimits is the share of the latency spent waiting for a CPU
	// (runnable, throttled) from which the CPU limits a service whose
	// mean use is below its budget (bursts, a busy host).
	runnableLimits = 0.3
)

// waitLimit is the limit each time account row stands for when it holds
// the latency; the rows not listed are the service's own work (its CPU,
// sleeps, disk, other system calls): the limit is then none. The
// generator's row is a bound that takes what the service's parts leave,
// not a measure: it is a doubt (DoubtClient), never a limit.
var waitLimit = map[runfmt.LedgerPart]runfmt.LimitKind{
	runfmt.PartDownstream: runfmt.LimitDownstream,
	runfmt.PartLock:       runfmt.LimitLock,
	runfmt.PartPool:       runfmt.LimitPool,
	runfmt.PartQueue:      runfmt.LimitQueue,
	runfmt.PartAccept:     runfmt.LimitQueue,
	runfmt.PartNetwork:    runfmt.LimitNetwork,
}

// cpuWaits are the rows of a request waiting for a CPU.
var cpuWaits = []runfmt.LedgerPart{runfmt.PartRunnable, runfmt.PartThrottled}

// limits decides the binding constraint and a second one when another
// holds a notable share of the latency.
func limits(r *runfmt.Run, f facts) []runfmt.Limit {
	if r.Stuck != nil {
		return []runfmt.Limit{{Kind: runfmt.LimitStuck, Share: 1}}
	}
	first, ok := cpuLimit(f)
	if !ok {
		first, ok = waitLimitOf(f, waitLimits, nil)
	}
	if !ok {
		first, ok = ownTime(f)
	}
	if !ok {
		return []runfmt.Limit{{Kind: runfmt.LimitUnknown}}
	}
	out := []runfmt.Limit{first}
	skip := func(p runfmt.LedgerPart) bool { return p == first.Part || first.Kind.CPU() && cpuConsequence[p] }
	if second, ok := waitLimitOf(f, secondLimit, skip); ok {
		out = append(out, second)
	}
	return out
}

// cpuConsequence are the time account's rows that grow when the CPU is
// saturated: waiting for a CPU, for the collector, for a lock or a
// goroutine whose holder waits for a CPU, behind busy workers.
var cpuConsequence = map[runfmt.LedgerPart]bool{
	runfmt.PartRunnable: true, runfmt.PartThrottled: true, runfmt.PartGC: true,
	runfmt.PartLock: true, runfmt.PartQueue: true, runfmt.PartAccept: true,
}

// cpuLimit is the CPU's limit: a budget used up or throttling, one
// thread of a single-threaded runtime per worker busy, the host's cores
// busy, or requests that spend much of their time waiting for a CPU.
func cpuLimit(f facts) (runfmt.Limit, bool) {
	waiting := 0.0
	for _, p := range cpuWaits {
		_, share := f.row(p)
		waiting += share
	}
	figs := runfmt.Figures{}.With(runfmt.FigCoresMean, f.cores)
	switch {
	case f.budget > 0 && (f.cores >= budgetUsed*f.budget || ThrottledNotable(f.throttledPct) && waiting >= runnableLimits):
		figs = figs.With(runfmt.FigCPULimit, f.budget).With(runfmt.FigThrottled, f.throttledPct/100)
		return limitWithCapacity(runfmt.LimitCPUBudget, f.cores/f.budget, f.budget, f, figs), true
	case f.threads > 0 && f.threadsBusy == f.threads && float64(f.threads) < f.usableCores():
		figs = figs.With(runfmt.FigCount, float64(f.threads))
		return limitWithCapacity(runfmt.LimitCPUThread, f.cores/float64(f.threads), float64(f.threads), f, figs), true
	case f.hostCores > 0 && f.cores >= hostUsed*f.usableCores():
		figs = figs.With(runfmt.FigHostCores, f.hostCores)
		return limitWithCapacity(runfmt.LimitCPUHost, f.cores/f.usableCores(), f.usableCores(), f, figs), true
	case waiting >= runnableLimits:
		kind := runfmt.LimitCPUHost
		if f.budget > 0 && f.rows[runfmt.PartThrottled] >= f.rows[runfmt.PartRunnable] {
			kind = runfmt.LimitCPUBudget
			figs = figs.With(runfmt.FigCPULimit, f.budget).With(runfmt.FigThrottled, f.throttledPct/100)
		}
		figs = figs.With(runfmt.FigHostCores, f.hostCores).With(runfmt.FigOtherCores, f.otherCores)
		return runfmt.Limit{Kind: kind, Part: runfmt.PartRunnable, Share: min(waiting, 1), Figures: figs}, true
	}
	return runfmt.Limit{}, false
}

// usableCores are the cores the service could use: its budget's, else
// the machine's.
func (f facts) usableCores() float64 {
	if f.budget > 0 && (f.hostCores == 0 || f.budget < f.hostCores) {
		return f.budget
	}
	return f.hostCores
}

// limitWithCapacity is a CPU limit with the throughput its cores allow at
// the measured CPU per request.
func limitWithCapacity(k runfmt.LimitKind, share, cores float64, f facts, figs runfmt.Figures) runfmt.Limit {
	if c := capacity(cores, f.cpuMs); c > 0 {
		figs = figs.With(runfmt.FigMaxRPS, c)
	}
	// A window's mean can pass its budget by a sampling step (1.01 of a
	// core): the limit holds all of it.
	return runfmt.Limit{Kind: k, Share: min(share, 1), Figures: figs}
}

// capacity is the throughput cores allow at cpuMs of CPU per request; 0
// when either is unknown.
func capacity(cores, cpuMs float64) float64 {
	if cores <= 0 || cpuMs <= 0 {
		return 0
	}
	return 1000 * cores / cpuMs
}

// waitLimitOf is the largest wait that limits the latency: a row of
// waitLimit holding at least least of it, skip leaving rows out (nil: none).
func waitLimitOf(f facts, least float64, skip func(runfmt.LedgerPart) bool) (runfmt.Limit, bool) {
	var best runfmt.Limit
	for _, p := range runfmt.LedgerParts.List() {
		kind, ok := waitLimit[p]
		if !ok || skip != nil && skip(p) {
			continue
		}
		ms, share := f.row(p)
		if share > best.Share && share >= least {
			best = runfmt.Limit{Kind: kind, Part: p, Share: share, Figures: runfmt.Figures{}.With(runfmt.FigWaitPerRequest, 1000*ms)}
		}
	}
	return best, best.Kind != ""
}

// ownTime is the limit of a service with CPU to spare whose latency is
// its own: none, with its largest part.
func ownTime(f facts) (runfmt.Limit, bool) {
	if len(f.rows) == 0 || f.latencyMs <= 0 {
		if f.cpuMs > 0 {
			return runfmt.Limit{Kind: runfmt.LimitNone, Part: runfmt.PartCPU}, true
		}
		return runfmt.Limit{}, false
	}
	var best runfmt.Limit
	for _, p := range runfmt.LedgerParts.List() {
		if p == runfmt.PartGenerator {
			continue // a bound, not the service's (DoubtClient)
		}
		if ms, share := f.row(p); share > best.Share {
			best = runfmt.Limit{Kind: runfmt.LimitNone, Part: p, Share: share, Figures: runfmt.Figures{}.With(runfmt.FigWaitPerRequest, 1000*ms)}
		}
	}
	if best.Part == "" {
		best = runfmt.Limit{Kind: runfmt.LimitNone}
	}
	return best, true
}
