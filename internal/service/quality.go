package service

import (
	"slices"

	"perflab/internal/runfmt"
)

// Thresholds of a noisy measurement.
const (
	// otherNoisyShare of the host's cores used by other processes (at
	// least otherNoisyMin cores) takes CPUs from the service or the load
	// generator often enough to move latency.
	otherNoisyShare = 0.10
	otherNoisyMin   = 0.2
	// stealNoisyShare of the host's cores (at least stealNoisyMin) taken by
	// the hypervisor.
	stealNoisyShare = 0.05
	stealNoisyMin   = 0.1
	// genWaitNoisyShare: the load generator waited for a CPU this share of
	// the mean latency per request (and at least genWaitNoisyMinMs).
	genWaitNoisyShare = 0.10
	genWaitNoisyMinMs = 0.05
	// topMinCores: other processes below this are not named.
	topMinCores = 0.01
)

// What a noisy machine distorts and what it leaves nearly intact: the CPU a
// request costs is counted in CPU time, which waiting does not add to (a
// crowded machine still adds a few percent: caches, context switches, and a
// lower rate that spreads the runtime's idle work over fewer requests). A
// batch program's wall time and cores busy are its latency and throughput.
var (
	noisyDistorted      = []runfmt.RunFigure{runfmt.RunLatency, runfmt.RunThroughput, runfmt.RunFindMaxRates}
	noisyTrusted        = []runfmt.RunFigure{runfmt.RunCPUPerRequest, runfmt.RunAllocations, runfmt.RunProfileShares}
	noisyBatchDistorted = []runfmt.RunFigure{runfmt.RunWallTime, runfmt.RunCoresBusy}
	noisyBatchTrusted   = []runfmt.RunFigure{runfmt.RunCPUTime, runfmt.RunProfileShares}
)

// QualityInput is what Assess judges.
type QualityInput struct {
	Machine MachineWindow
	// Service is what the service used in the window (nil: not sampled;
	// Machine.ServiceCores stands for it then).
	Service *runfmt.TargetSummary
	// Requests and LatencyMeanMs are the window's load (0 without one).
	Requests      int64
	LatencyMeanMs float64
}

// Assess judges the measurement: noisy when other processes used a
// noticeable share of the host, the hypervisor stole CPU, or the load
// generator waited for a CPU long enough to inflate the latencies it
// recorded. The record carries the measured figures either way; its words
// are made where it is shown.
func Assess(in QualityInput) runfmt.Quality {
	m := in.Machine
	q := runfmt.Quality{
		Start: m.Start, WindowS: m.Seconds, HostCores: m.HostCores, HostBusyCores: m.ProcCores,
		IRQCores: m.IRQCores, IOWaitCores: m.IOWaitCores, StealCores: m.StealCores,
		PerflabCores: m.SelfCores, PerflabRunqueueWaitS: m.SelfRunqueueWaitSeconds,
	}
	if s := in.Service; s != nil {
		q.ServiceCores, q.ServiceRunqueueWaitS, q.ServiceThrottledPct = s.CPUCoresMean, s.RunqueueWaitSeconds, s.ThrottledPct
	} else {
		q.ServiceCores = m.ServiceCores // the scans' figure: the service is not another process
	}
	// The host's busy time less the service's and perflab's catches the
	// processes that came and went between scans; the scans' own sum is
	// the floor where the host's figure reads low (softirq or steal time
	// that /proc/stat books apart but the processes' times include).
	q.OtherCores = max(m.ProcCores-q.ServiceCores-q.PerflabCores, m.OtherScannedCores, 0)
	if in.Requests > 0 {
		q.PerflabWaitMsPerRequest = q.PerflabRunqueueWaitS * 1000 / float64(in.Requests)
		q.ServiceWaitMsPerRequest = q.ServiceRunqueueWaitS * 1000 / float64(in.Requests)
	}
	for _, p := range m.Top {
		if p.Cores >= topMinCores {
			q.TopOther = append(q.TopOther, runfmt.ProcessCPU{PID: p.PID, Name: p.Name, Cores: p.Cores})
		}
	}
	host := float64(max(m.HostCores, 1))
	if q.OtherCores >= max(otherNoisyShare*host, otherNoisyMin) {
		q.Causes = append(q.Causes, runfmt.NoiseOtherProcesses)
	}
	if q.StealCores >= max(stealNoisyShare*host, stealNoisyMin) {
		q.Causes = append(q.Causes, runfmt.NoiseSteal)
	}
	if in.LatencyMeanMs > 0 && q.PerflabWaitMsPerRequest >= max(genWaitNoisyShare*in.LatencyMeanMs, genWaitNoisyMinMs) {
		q.Causes = append(q.Causes, runfmt.NoiseGeneratorWaited)
	}
	if len(q.Causes) == 0 {
		q.Verdict = runfmt.QualityClean
		return q
	}
	q.Verdict = runfmt.QualityNoisy
	q.Trusted, q.Distorted = slices.Clone(noisyTrusted), slices.Clone(noisyDistorted)
	return q
}

// AsBatch judges q, a batch program's machine, in a batch program's
// figures: its wall time and cores busy are distorted, its CPU time is
// not.
func AsBatch(q *runfmt.Quality) {
	if q.Noisy() {
		q.Trusted, q.Distorted = slices.Clone(noisyBatchTrusted), slices.Clone(noisyBatchDistorted)
	}
}
