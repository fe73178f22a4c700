package findings

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
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

func (r runqueue) text() string {
	return fmt.Sprintf("%s (the service's threads %s, the load generator's %s)", units.FormatMs(r.ms()), units.FormatMs(r.serviceMs), units.FormatMs(r.generatorMs))
}

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

// cpuContention reports requests that wait mostly for a CPU rather than on
// I/O or locks: the run-queue wait of the service's threads and of the load
// generator's is at least half of the time off-CPU, or the service's
// threads waited for a CPU as long as they ran (in a closed loop the
// requests then queue behind each other inside the service, which the
// kernel's per-thread wait undercounts). It replaces the off-cpu finding,
// names who held the CPUs and says what to do.
func cpuContention(in FindingInput, rq runqueue, latMs, cpuMs float64) (runfmt.Finding, bool) {
	t := in.Target
	if t == nil || rq.ms() <= 0 || rq.ms() < contentionMinShare*(latMs-cpuMs) && !rq.starved {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{Kind: runfmt.FindingCPUContention, Share: min(1, max(rq.ms()/latMs, 1-cpuMs/latMs)), WaitUsPerRequest: 1000 * rq.ms()}
	f.Title = fmt.Sprintf("requests wait for a CPU: %s per request runnable but not running", units.FormatMs(rq.ms()))
	var d strings.Builder
	fmt.Fprintf(&d, "A request takes %s on average and uses %s of CPU; %s per request was spent waiting in the kernel's run queue "+
		"(the service's threads %.2f s in the window while they ran %.2f s, using %.2f cores", units.FormatMs(latMs), units.FormatMs(cpuMs), rq.text(), t.RunqueueWaitSeconds, t.CPUSeconds, t.CPUCoresMean)
	if t.CPULimitCores > 0 {
		fmt.Fprintf(&d, " of a %g-core budget", t.CPULimitCores)
	}
	d.WriteString("). This is not I/O or lock waiting. ")
	d.WriteString(whoHeldTheCPUs(in.Quality))
	d.WriteString(" Latency and throughput measured this way are inflated; CPU per request and allocations far less (they count CPU time, not waiting). " +
		"To measure cleanly: give the service and the load generator their own cores (--service-cpus and --load-cpus), " +
		"stop the other busy processes, or run the load from another machine; " + threadsRemedy(in.Runtime))
	f.Detail = d.String()
	return f, true
}

// whoHeldTheCPUs names what used the CPUs during the window.
func whoHeldTheCPUs(q *runfmt.Quality) string {
	if q == nil {
		return "Other processes, the load generator, or the service's own threads beyond its cores held the CPUs."
	}
	var parts []string
	if q.OtherCores >= 0.01 {
		p := fmt.Sprintf("other processes used %.2f of %d cores", q.OtherCores, q.HostCores)
		var names []string
		for i, o := range q.TopOther {
			if i == 3 {
				break
			}
			names = append(names, fmt.Sprintf("%s (pid %d) %.2f", o.Name, o.PID, o.Cores))
		}
		if len(names) > 0 {
			p += ": " + strings.Join(names, ", ")
		}
		parts = append(parts, p)
	}
	parts = append(parts, fmt.Sprintf("perflab (the load generator) used %.2f cores", q.PerflabCores))
	if q.StealCores >= 0.01 {
		parts = append(parts, fmt.Sprintf("the hypervisor took %.2f cores (steal)", q.StealCores))
	}
	parts = append(parts, fmt.Sprintf("the service %.2f", q.ServiceCores))
	return "Who held the CPUs: " + strings.Join(parts, "; ") + "."
}
