package prose

import (
	"strconv"

	"perflab/internal/runfmt"
)

// waitMinShare is the least share of a request's time the wall-time
// rules name a wait for (package findings' waitMinShare): the words say
// no single wait took it.
const waitMinShare = 0.10

// offCPUWords word requests that spend most of their time waiting: what
// the waiting turned out to be, or what was checked.
var offCPUWords = oneKind(runfmt.FindingOffCPU,
	func(v view, p *Prose) {
		p.say("requests wait: %v mean latency for %v of CPU", v.fig(runfmt.FigLatency), v.fig(runfmt.FigCPU))
	},
	offCPUDetail, advices{
		runfmt.AdviceCheckLocks:     fixed("Look at the mutex and block profiles and at the latency of what the handler calls."),
		runfmt.AdviceCheckWorkers:   fixed("Look at what the handler waits on (database, HTTP calls) and at the workers: with sync workers (gunicorn -w, puma -w and -t) a request that finds every worker busy waits in the listen queue."),
		runfmt.AdviceCheckEventLoop: fixed("Look at what the handler awaits, and at callbacks that block the event loop: one long callback delays every request behind it."),
		runfmt.AdviceCheckThreads:   fixed("Look at lock contention and thread pools (a thread dump with jstack) and at the latency of what the handler calls."),
	})

func offCPUDetail(v view, p *Prose) {
	p.say("A request takes %v on average but uses %v of CPU, so %v of its time is spent off-CPU", v.fig(runfmt.FigLatency), v.fig(runfmt.FigCPU), v.fig(runfmt.FigOffShare))
	if v.has(runfmt.FigRunqueue) {
		p.words("; ")
		runqueueText(v, p, runfmt.FigRunqueue)
		p.say(" of it is waiting for a CPU (the run queue), the other %v is waiting on I/O, locks, a downstream service or a queue.", v.fig(runfmt.FigOtherWait))
	} else {
		p.words(": waiting on I/O, locks, a downstream service or a queue.")
	}
	ev := v.f.Evidence
	if len(ev.Noise) > 0 {
		p.words(" The machine was noisy (")
		p.join("; ", len(ev.Noise), func(i int) { p.words(ev.Noise[i]) })
		p.words("): part of this may be CPU contention as well.")
	} else if v.has(runfmt.FigOtherCores) || v.has(runfmt.FigStealCores) || v.has(runfmt.FigPerflabCores) {
		p.words(" The machine was noisy (")
		noiseText(v, p)
		p.words("): part of this may be CPU contention as well.")
	}
	if len(ev.Phases) > 0 {
		p.words(" Client-side phases (mean): ")
		parts(p, ev.Phases)
		p.words(".")
	}
	if v.has(runfmt.FigSyscallShare) {
		p.say(" %v of the CPU it does use is in system calls and network polling.", v.fig(runfmt.FigSyscallShare))
	}
	switch {
	case len(ev.Time) > 0:
		timeSplit(v, p)
	case len(ev.Functions) > 0:
		p.words(" The kernel's scheduler events show where the service's threads waited off a CPU, per request: ")
		p.join("; ", len(ev.Functions), func(i int) {
			e := ev.Functions[i]
			p.say("%v %v (%v)", code(label(e)), efig(e, runfmt.FigWaitPerRequest), word(string(e.Wait)))
		})
		p.words(" (threads waiting for work, in epoll_wait or accept, count too: not all of it is request time).")
	default:
		checked(v, p)
	}
}

// parts lists a breakdown: "connect 0.12 ms, wait 3.40 ms".
func parts(p *Prose, ps []runfmt.Part) {
	p.join(", ", len(ps), func(i int) { p.say("%v %v", word(ps[i].Name), quantity(runfmt.MeasureMicros, ps[i].UsPerRequest)) })
}

// timeSplit says how a wall-time profile split a request's time off a CPU.
func timeSplit(v view, p *Prose) {
	p.say(" The %v (%v, %v requests) splits a request's time: ", word(sourceName(runfmt.TimeSource(v.set(runfmt.SettingSource)))),
		v.fig(runfmt.FigTraced), v.fig(runfmt.FigTracedRequests))
	parts(p, v.f.Evidence.Time)
	p.words(".")
	if v.has(runfmt.FigSchedWait) {
		p.say(" %v of it is waiting for a CPU (runnable, or held off a CPU by the kernel", v.fig(runfmt.FigSchedWait))
		if v.has(runfmt.FigRunqueueTime) {
			p.say("; the service's threads waited %v in the kernel's run queue over the window", v.fig(runfmt.FigRunqueueTime))
		}
		p.words("), not I/O or locks.")
	}
	switch {
	case v.has(runfmt.FigExplained):
		p.say(" The findings above name %v of it per request; %v stays unexplained.", v.fig(runfmt.FigExplained), v.fig(runfmt.FigUnexplained))
	case !v.has(runfmt.FigSchedWait):
		p.say(" No single wait takes %v of it.", fig(runfmt.FigShare, waitMinShare))
	}
	if v.has(runfmt.FigTracedTotal) {
		p.say(" The service's own goroutines account for %v of a request, less than half the latency: the rest is outside it (the network, the load generator, the kernel's queues).", v.fig(runfmt.FigTracedTotal))
	}
}

// checked says what was checked for the time off a CPU, and could not be.
func checked(v view, p *Prose) {
	checks := v.f.Evidence.Notes
	lock := v.set(runfmt.SettingLockProfiles) == runfmt.SettingOff
	p.words(" What was checked: ")
	p.join("; ", len(checks), func(i int) { p.words(checks[i]) })
	switch {
	case lock && len(checks) > 0:
		p.words("; ")
		fallthrough
	case lock:
		p.say("no mutex and block profiles (the service does not enable them: %v, %v)", code("runtime.SetMutexProfileFraction"), code("runtime.SetBlockProfileRate"))
	case len(checks) == 0:
		p.words("no wall-time profile of the service")
	}
	p.words(".")
}

// sourceName names a wall-time source in a sentence.
func sourceName(src runfmt.TimeSource) string {
	switch src {
	case runfmt.TimeSourceGoTrace:
		return "Go execution trace"
	case runfmt.TimeSourcePySpy, runfmt.TimeSourceRbSpy:
		return string(src) + "'s wall-clock samples"
	case runfmt.TimeSourcePerfSched:
		return "kernel's scheduler events"
	}
	return string(src)
}

// noiseText says what made the machine noisy, from noiseFigures'
// figures: "other processes used 1.46 of 2 cores (grpcapi[5469] 0.22);
// the hypervisor took 0.30 cores (steal)".
func noiseText(v view, p *Prose) {
	var parts []func()
	if v.has(runfmt.FigOtherCores) {
		parts = append(parts, func() {
			p.say("other processes used %v of %v cores", v.fig(runfmt.FigOtherCores), v.fig(runfmt.FigHostCores))
			if ps := v.f.Evidence.Processes; len(ps) > 0 {
				p.words(" (")
				p.join(", ", len(ps), func(i int) {
					p.say("%v %v", code(ps[i].Name+"["+strconv.Itoa(ps[i].PID)+"]"), quantity(runfmt.MeasureCores, ps[i].Cores))
				})
				p.words(")")
			}
		})
	}
	if v.has(runfmt.FigStealCores) {
		parts = append(parts, func() { p.say("the hypervisor took %v cores (steal)", v.fig(runfmt.FigStealCores)) })
	}
	if v.has(runfmt.FigPerflabCores) {
		parts = append(parts, func() {
			if v.has(runfmt.FigGeneratorQueue) {
				p.say("the load generator waited %v per request for a CPU (perflab used %v cores)", v.fig(runfmt.FigGeneratorQueue), v.fig(runfmt.FigPerflabCores))
				return
			}
			p.say("the load generator waited for a CPU (perflab used %v cores)", v.fig(runfmt.FigPerflabCores))
		})
	}
	p.join("; ", len(parts), func(i int) { parts[i]() })
}
