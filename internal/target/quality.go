package target

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
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
// lower rate that spreads the runtime's idle work over fewer requests).
var (
	noisyInvalid = []string{"latency", "throughput (requests/s)", "find-max rates"}
	noisyValid   = []string{cpuValid, "allocations per request", ProfileSharesValid}
)

// cpuValid is the CPU per request among a noisy run's valid figures, and
// noisyTail the end of its summary line.
const (
	cpuValid  = CPUPerRequestFigure + " (within a few percent)"
	noisyTail = "; latency and throughput figures are inflated, CPU per request far less"
)

// ProfileSharesValid names a run's profile shares among its valid or
// invalid figures (runfmt.Quality), a service's run or a batch program's;
// CPUPerRequestFigure begins its CPU per request's entry there.
const (
	ProfileSharesValid  = "profile shares"
	CPUPerRequestFigure = "CPU per request"
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
// recorded. The summary line carries the measured figures either way.
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
	others := fmt.Sprintf("other processes used %.2f of %d cores%s", q.OtherCores, m.HostCores, topText(q.TopOther))
	if q.OtherCores >= max(otherNoisyShare*host, otherNoisyMin) {
		q.Reasons = append(q.Reasons, others)
	}
	if q.StealCores >= max(stealNoisyShare*host, stealNoisyMin) {
		q.Reasons = append(q.Reasons, fmt.Sprintf("the hypervisor took %.2f cores (steal)", q.StealCores))
	}
	gen := generatorText(q)
	if in.LatencyMeanMs > 0 && q.PerflabWaitMsPerRequest >= max(genWaitNoisyShare*in.LatencyMeanMs, genWaitNoisyMinMs) {
		q.Reasons = append(q.Reasons, gen)
	}
	if len(q.Reasons) == 0 {
		q.Verdict = runfmt.QualityClean
		q.Summary = "clean — " + others
		if gen != "" {
			q.Summary += "; " + gen
		}
		return q
	}
	q.Verdict = runfmt.QualityNoisy
	q.Valid, q.Invalid = noisyValid, noisyInvalid
	q.Summary = "NOISY — " + strings.Join(q.Reasons, "; ") + noisyTail
	return q
}

// generatorText describes the load generator's CPU and waiting.
func generatorText(q runfmt.Quality) string {
	switch {
	case q.PerflabWaitMsPerRequest > 0:
		return fmt.Sprintf("the load generator waited %s per request for a CPU (perflab used %.2f cores)", units.FormatMs(q.PerflabWaitMsPerRequest), q.PerflabCores)
	case q.PerflabCores > 0:
		return fmt.Sprintf("perflab used %.2f cores and waited %.2f s for a CPU", q.PerflabCores, q.PerflabRunqueueWaitS)
	}
	return ""
}

// topText names the busiest other processes: " (stress 0.98, yes 0.61)".
func topText(top []runfmt.ProcessCPU) string {
	var parts []string
	for i, p := range top {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s[%d] %.2f", p.Name, p.PID, p.Cores))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
