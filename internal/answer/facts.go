package answer

import "perflab/internal/runfmt"

// facts are the run's figures the answer reads, gathered once: per
// request where the run had requests.
type facts struct {
	// cpuMs is the service's measured CPU per request, 0 when unknown.
	cpuMs float64
	// latencyMs is the mean latency, rps the throughput answered.
	latencyMs, rps float64
	// cores is the service's mean CPU use; budget its quota in cores (0
	// without one); throttledPct its periods throttled.
	cores, budget, throttledPct float64
	// hostCores are the machine's cores, otherCores what other processes
	// used of them.
	hostCores, otherCores float64
	// threads are the busy processes of a single-threaded runtime (node,
	// Python, Ruby: one interpreter thread each), threadsBusy how many of
	// them kept their one thread busy; 0 for other runtimes.
	threads, threadsBusy int
	// rows are the time account's measured rows in ms per request (the
	// downstream rows summed); unexplained its rest.
	rows        map[runfmt.LedgerPart]float64
	unexplained float64
	// gcMs is the garbage collector's CPU per request; allocBytes the
	// bytes allocated per request.
	gcMs, allocBytes float64
}

// threadBusy is the share of the window from which a single-threaded
// process's one thread is taken as busy: running, or ready to run and
// waiting for a CPU.
const threadBusy = 0.85

// workerCores is the least CPU a process of the service uses to count as
// one of its workers (a pre-fork server's master uses next to none).
const workerCores = 0.1

func gather(r *runfmt.Run) facts {
	f := facts{rows: map[runfmt.LedgerPart]float64{}}
	if l := r.Load; l != nil {
		f.latencyMs, f.rps = l.Latency.Mean, l.RPS
	}
	if t := r.Target; t != nil {
		f.cpuMs, f.cores, f.budget, f.throttledPct = t.CPUMsPerRequest, t.CPUCoresMean, t.CPULimitCores, t.ThrottledPct
		f.threads, f.threadsBusy = singleThreaded(r.Profiling, t)
	}
	if q := r.Quality; q != nil {
		f.hostCores, f.otherCores = float64(q.HostCores), q.OtherCores
	}
	if f.hostCores == 0 {
		f.hostCores = float64(r.Env.HostCores)
	}
	if lg := r.Ledger; lg != nil {
		if a := lg.CPU; a != nil && a.MeasuredMs > 0 {
			f.cpuMs = a.MeasuredMs
			for _, o := range a.Owners {
				if o.Owner == runfmt.OwnerGC {
					f.gcMs = o.MsPerRequest
				}
			}
		}
		if t := lg.Time; t != nil {
			if t.LatencyMs > 0 {
				f.latencyMs = t.LatencyMs
			}
			for _, row := range t.Rows {
				if ms, ok := row.Ms(); ok {
					f.rows[row.Part] += ms
				}
			}
			f.unexplained = t.UnexplainedMs
		}
	}
	if f.gcMs == 0 && r.GC != nil {
		f.gcMs = r.GC.CPUPct / 100 * f.cpuMs
	}
	f.allocBytes = r.AllocBytesPerRequest
	return f
}

// singleThreaded counts the service's worker processes of a runtime that
// runs its code on one thread per process, and those whose thread was
// busy; 0, 0 when any worker runs another runtime. A thread is busy when
// it ran, or was ready to run and waited for a CPU, most of the window:
// its CPU and its share of the service's run-queue wait (shared among
// the workers as their CPU is). On a machine whose other processes take
// the CPUs, such a thread gets less than its core while the requests
// queue behind it: it holds them back as one that runs all the time
// does, and the noise is said as a doubt.
func singleThreaded(p *runfmt.Profiling, t *runfmt.TargetSummary) (workers, busy int) {
	if p == nil || t.CPUCoresMean <= 0 || t.CPUSeconds <= 0 {
		return 0, 0
	}
	window := t.CPUSeconds / t.CPUCoresMean
	var sampled float64
	for _, pr := range p.Processes {
		sampled += pr.CPUSeconds
	}
	if sampled <= 0 {
		return 0, 0
	}
	for _, pr := range p.Processes {
		share := pr.CPUSeconds / sampled
		cores := share * t.CPUSeconds / window // its share of the measured CPU
		if cores < workerCores {
			continue
		}
		switch pr.Runtime {
		case runfmt.RuntimeNode, runfmt.RuntimePython, runfmt.RuntimeRuby:
		default:
			return 0, 0
		}
		workers++
		if cores+share*t.RunqueueWaitSeconds/window >= threadBusy {
			busy++
		}
	}
	return workers, busy
}

// row is the time account's row of part p in ms per request, and its
// share of the mean latency.
func (f facts) row(p runfmt.LedgerPart) (ms, share float64) {
	ms = f.rows[p]
	if f.latencyMs > 0 {
		share = ms / f.latencyMs
	}
	return ms, share
}
