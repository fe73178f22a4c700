package findings

import "perflab/internal/runfmt"

// Thresholds of the rules about time off a CPU.
const (
	offCPUMinRatio     = 5   // mean latency / CPU per request
	contentionMinShare = 0.5 // run-queue wait / time off-CPU
	offCPUMaxCoreShare = 0.8 // not off-CPU when this close to the budget
	processesNamed     = 3   // the other processes that held the CPUs
	coresMin           = 0.01
)

// runqueue is the time per request that the service's threads and the
// load generator's were runnable but waited for a CPU. Both are inside the
// latency the generator records, and neither is I/O or lock waiting.
type runqueue struct {
	serviceMs, generatorMs float64
	// starved: the service's threads waited for a CPU at least as long as
	// they ran.
	starved bool
}

func (r runqueue) ms() float64 { return r.serviceMs + r.generatorMs }

func runqueueOf(in FindingInput) runqueue {
	var r runqueue
	if in.Requests <= 0 {
		return r
	}
	if t := in.Target; t != nil {
		r.serviceMs = t.RunqueueWaitSeconds * 1000 / float64(in.Requests)
		r.starved = t.CPUSeconds > 0 && t.RunqueueWaitSeconds >= t.CPUSeconds
	}
	if q := in.Quality; q != nil {
		r.generatorMs = q.PerflabRunqueueWaitS * 1000 / float64(in.Requests)
	}
	return r
}

// claim caps the run queue's parts at the ledger's rows (t nil: none):
// the service's threads' wait at its runnable row, the load generator's
// at its generator row, so the finding claims no more than they hold.
func (r runqueue) claim(t *runfmt.TimeAccount) runqueue {
	if ms, ok := rowsMs(t, runfmt.PartRunnable); ok {
		r.serviceMs = min(r.serviceMs, ms)
	}
	if ms, ok := rowsMs(t, runfmt.PartGenerator); ok {
		r.generatorMs = min(r.generatorMs, ms)
	}
	return r
}

// figures are the run queue's figures: in all, and the service's and the
// load generator's parts.
func (r runqueue) figures(figs runfmt.Figures, total runfmt.Figure) {
	figs[total], figs[runfmt.FigServiceQueue], figs[runfmt.FigGeneratorQueue] = 1000*r.ms(), 1000*r.serviceMs, 1000*r.generatorMs
}

// offCPUTimes are a request's mean latency and CPU, in ms, when the
// requests spend most of their time off a CPU and the service is not at
// its budget (then it queues for CPU, which the CPU findings explain).
func offCPUTimes(c *context) (lat, cpuMs float64, ok bool) {
	in := c.in
	if in.Load == nil || c.cpu.UsPerRequest <= 0 || in.Load.Latency.Mean <= 0 {
		return 0, 0, false
	}
	if t := in.Target; t != nil && (t.CPUBound || t.CPULimitCores > 0 && t.CPUCoresMean >= offCPUMaxCoreShare*t.CPULimitCores) {
		return 0, 0, false
	}
	lat, cpuMs = in.Load.Latency.Mean, c.cpu.UsPerRequest/1000
	return lat, cpuMs, lat >= offCPUMinRatio*cpuMs
}

// contends says requests wait mostly for a CPU rather than on I/O or
// locks: the run-queue wait of the service's threads and of the load
// generator's is at least half of the time off-CPU, or the service's
// threads waited for a CPU as long as they ran (in a closed loop the
// requests then queue behind each other inside the service, which the
// kernel's per-thread wait undercounts).
func contends(in FindingInput, rq runqueue, latMs, cpuMs float64) bool {
	return in.Target != nil && rq.ms() > 0 && (rq.ms() >= contentionMinShare*(latMs-cpuMs) || rq.starved)
}

// contentionFinding reports requests that wait for a CPU (see contends) in
// place of the off-cpu finding: who held the CPUs and what to do. When
// other processes held them on a noisy machine, that is the machine's
// noise, which the measurement's banner says (quality): not a finding
// about the service, and the off-cpu finding still steps aside.
func contentionFinding(c *context) []ranked {
	if machineNoise(c.in.Quality) {
		return nil
	}
	lat, cpuMs, ok := offCPUTimes(c)
	if rq := runqueueOf(c.in); ok && contends(c.in, rq, lat, cpuMs) {
		f := contention(c.in, rq.claim(ledgerTime(c.in)), lat, cpuMs)
		return []ranked{{f: f, rank: f.Figures[runfmt.FigShare]}}
	}
	return nil
}

// machineNoise says the run was noisy because other processes or other
// guests used the CPUs.
func machineNoise(q *runfmt.Quality) bool {
	return q.Noisy() && (q.OtherCores >= coresMin || q.StealCores >= coresMin)
}

func contention(in FindingInput, rq runqueue, latMs, cpuMs float64) runfmt.Finding {
	t := in.Target
	f := runfmt.Finding{Kind: runfmt.FindingCPUContention, Advice: threadsAdvice(in.Runtime), Figures: runfmt.Figures{
		runfmt.FigShare:   min(1, max(rq.ms()/latMs, 1-cpuMs/latMs)),
		runfmt.FigLatency: 1000 * latMs, runfmt.FigCPU: 1000 * cpuMs,
		runfmt.FigRunqueueTime: t.RunqueueWaitSeconds, runfmt.FigCPUTime: t.CPUSeconds, runfmt.FigCoresMean: t.CPUCoresMean,
	}}
	rq.figures(f.Figures, runfmt.FigWaitPerRequest)
	if t.CPULimitCores > 0 {
		f.Figures[runfmt.FigCPULimit] = t.CPULimitCores
	}
	if q := in.Quality; q != nil {
		f.Figures[runfmt.FigHostCores], f.Figures[runfmt.FigPerflabCores], f.Figures[runfmt.FigServiceCores] = float64(q.HostCores), q.PerflabCores, q.ServiceCores
		if q.OtherCores >= coresMin {
			f.Figures[runfmt.FigOtherCores] = q.OtherCores
			f.Evidence.Processes = q.TopOther[:min(len(q.TopOther), processesNamed)]
		}
		if q.StealCores >= coresMin {
			f.Figures[runfmt.FigStealCores] = q.StealCores
		}
	}
	return f
}

// threadsAdvice is the advice for more busy threads than cores, in the
// runtime's terms.
var threadsAdvice = runtimeAdvice{scripts: runfmt.AdviceFewerWorkers, node: runfmt.AdviceFewerProcesses,
	jvm: runfmt.AdviceShrinkPools, other: runfmt.AdviceLowerGOMAXPROCS}.of
