package answer

import (
	"perflab/internal/runfmt"
)

// consequenceKinds are the findings whose time grows when the CPU is
// saturated (see cpuConsequence): on a CPU limit they are its
// consequences.
var consequenceKinds = map[runfmt.FindingKind]bool{
	runfmt.FindingGCPause: true, runfmt.FindingThrottled: true, runfmt.FindingSchedulerLatency: true,
	runfmt.FindingCPUContention: true, runfmt.FindingSyncWait: true, runfmt.FindingLockContention: true,
	runfmt.FindingOffCPU: true, runfmt.FindingGOMAXPROCS: true,
}

// payoffs sets each finding's payoff: the CPU per request its fix saves
// (its own CPU, and the garbage collection its culprit's allocations
// cause), the throughput the CPU would then allow at the limit, and the
// mean latency it saves (with, off a CPU limit, the waits for the
// collector its culprit's allocations cause); and marks the consequences
// of a CPU limit.
func payoffs(r *runfmt.Run, f facts, limit runfmt.Limit) {
	gc, shares, claimed := gcCharges(r, f)
	pauseUs := gcPauses(r, limit)
	consequenceUs := 0.0
	if limit.Kind.CPU() {
		for p := range cpuConsequence {
			consequenceUs += 1000 * f.rows[p]
		}
	}
	cores := limitCores(limit, f)
	for i := range r.Findings {
		fd := &r.Findings[i]
		fd.Payoff, fd.ConsequenceOf = nil, ""
		if limit.Kind.CPU() && consequenceKinds[fd.Kind] {
			fd.ConsequenceOf = limit.Kind
			continue
		}
		cpuUs := cpuSaved(fd, gc[i])
		if cpuUs > 0 {
			fd.Payoff = fd.Payoff.With(runfmt.FigCPUPerRequest, cpuUs)
			if c := capacity(cores, f.cpuMs-cpuUs/1000); c > 0 && limit.Kind.CPU() {
				fd.Payoff = fd.Payoff.With(runfmt.FigMaxRPS, c)
			}
		}
		lat := latencySaved(fd, f, cpuUs, consequenceUs)
		if fd.Kind == runfmt.FindingGCPause {
			lat *= max(1-claimed, 0) // what no culprit's allocations cause
		} else if shares[i] > 0 && pauseUs > 0 {
			lat += pauseUs * shares[i]
			if f.latencyMs > 0 {
				lat = min(lat, 1000*f.latencyMs)
			}
		}
		if lat > 0 {
			fd.Payoff = fd.Payoff.With(runfmt.FigLatency, lat)
		}
	}
}

// limitCores are the cores a CPU limit allows: the budget's, the busy
// threads', the host's usable ones; 0 for another limit.
func limitCores(l runfmt.Limit, f facts) float64 {
	switch l.Kind {
	case runfmt.LimitCPUBudget:
		return f.budget
	case runfmt.LimitCPUThread:
		return float64(f.threads)
	case runfmt.LimitCPUHost:
		return f.usableCores()
	}
	return 0
}

// cpuSaved is the CPU per request, in µs, that fixing fd saves: its own
// CPU (what no costlier finding counts too), plus the collection its
// allocations cause (gcUs); for a GC finding, what no culprit's
// allocations cause.
func cpuSaved(fd *runfmt.Finding, gcUs float64) float64 {
	switch fd.Kind {
	case runfmt.FindingCPUBound, runfmt.FindingStartup:
		return 0 // the limit itself; a cost of starting, not of each request
	case runfmt.FindingGC:
		return gcUs
	}
	return ownCPU(fd) + gcUs
}

// ownCPU is the CPU per request only fd explains: its exclusive part when
// the findings package knew its stacks, else all of it.
func ownCPU(fd *runfmt.Finding) float64 {
	if us, ok := fd.Figures[runfmt.FigExclusiveCPU]; ok {
		return us
	}
	return fd.Figures[runfmt.FigCPUPerRequest]
}

// latencySaved is the mean latency, in µs, that fixing fd saves: a wait's
// own time; a CPU finding's CPU and, on a CPU limit, its part of the waits
// the saturated CPU causes, in proportion to its CPU.
func latencySaved(fd *runfmt.Finding, f facts, cpuUs, consequenceUs float64) float64 {
	lat := fd.Figures[runfmt.FigWaitPerRequest]
	if cpuUs > 0 {
		lat += cpuUs
		if consequenceUs > 0 && f.cpuMs > 0 {
			lat += consequenceUs * min(cpuUs/(1000*f.cpuMs), 1)
		}
	}
	if f.latencyMs > 0 {
		lat = min(lat, 1000*f.latencyMs)
	}
	return lat
}

// gcCharges is, by finding, the collector's CPU per request (µs) its fix
// would save: each culprit's bytes allocated per request over all bytes
// allocated, split between the findings naming it by their CPU (shares,
// claimed their sum); what no culprit allocates stays with the GC
// finding.
func gcCharges(r *runfmt.Run, f facts) (out, shares []float64, claimed float64) {
	out, shares = make([]float64, len(r.Findings)), make([]float64, len(r.Findings))
	gcUs := 1000 * f.gcMs
	for i := range r.Findings {
		if r.Findings[i].Kind == runfmt.FindingGC {
			gcUs = r.Findings[i].Figures[runfmt.FigCPUPerRequest] // one figure of the GC on every page
		}
	}
	if f.allocBytes <= 0 {
		return out, shares, 0
	}
	bytes := map[string]float64{}
	for _, a := range r.Allocs {
		if a.UserCode {
			bytes[a.Function] = a.BytesPerRequest
		}
	}
	cpuOf := map[string]float64{} // the CPU of the findings naming each culprit
	culprits := make([]string, len(r.Findings))
	for i := range r.Findings {
		fd := &r.Findings[i]
		if fd.Kind == runfmt.FindingGC || cpuSaved(fd, 0) <= 0 {
			continue
		}
		if c, ok := fd.Culprit(); ok && bytes[c.Function] > 0 {
			culprits[i] = c.Function
			cpuOf[c.Function] += ownCPU(fd)
		}
	}
	for i, c := range culprits {
		if c == "" || cpuOf[c] <= 0 {
			continue
		}
		shares[i] = min(bytes[c]/f.allocBytes, 1) * ownCPU(&r.Findings[i]) / cpuOf[c]
		out[i] = max(gcUs, 0) * shares[i]
		claimed += shares[i]
	}
	for i := range r.Findings {
		if r.Findings[i].Kind == runfmt.FindingGC {
			out[i] = max(gcUs, 0) * max(1-claimed, 0)
		}
	}
	return out, shares, claimed
}

// gcPauses is the time per request (µs) requests waited for the
// collector, when it is not a consequence of a CPU limit: like the GC's
// CPU, it is charged to the culprits by the bytes they allocate, since
// the collector runs as often as the heap grows.
func gcPauses(r *runfmt.Run, limit runfmt.Limit) float64 {
	if limit.Kind.CPU() {
		return 0 // charged to the code that used the CPU, as the limit's consequence
	}
	us := 0.0
	for i := range r.Findings {
		if r.Findings[i].Kind == runfmt.FindingGCPause {
			us += r.Findings[i].Figures[runfmt.FigWaitPerRequest]
		}
	}
	return us
}
