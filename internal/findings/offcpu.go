package findings

import (
	"sort"
	"strconv"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// Thresholds of the off-cpu rule.
const (
	offExplainedShare = 0.6   // wall-time findings explaining this much replace off-cpu
	timeKindMinMs     = 0.005 // a kind of wall time worth quoting, per request
	offSitesNamed     = 3
	offSitesPerWait   = 2
)

// syscallFrames mark CPU spent entering the kernel or polling the network.
var syscallFrames = []string{"syscall.Syscall", "syscall.Syscall6", "syscall.RawSyscall", "syscall.RawSyscall6", "internal/runtime/syscall.Syscall6", "runtime.netpoll", "internal/poll.(*FD).Read", "internal/poll.(*FD).Write"}

// offCPURule reports requests that spend most of their time waiting,
// unless they wait for a CPU (contentionRule) or the wall-time findings
// explain most of it: then they say it better. It says what the waiting
// turned out to be, or what was checked.
var offCPURule = oneKind(runfmt.FindingOffCPU, offCPU,
	func(v view, p *Prose) {
		p.say("requests wait: %v mean latency for %v of CPU", v.fig(runfmt.FigLatency), v.fig(runfmt.FigCPU))
	},
	offCPUDetail, advices{
		runfmt.AdviceCheckLocks:     fixed("Look at the mutex and block profiles and at the latency of what the handler calls."),
		runfmt.AdviceCheckWorkers:   fixed("Look at what the handler waits on (database, HTTP calls) and at the workers: with sync workers (gunicorn -w, puma -w and -t) a request that finds every worker busy waits in the listen queue."),
		runfmt.AdviceCheckEventLoop: fixed("Look at what the handler awaits, and at callbacks that block the event loop: one long callback delays every request behind it."),
		runfmt.AdviceCheckThreads:   fixed("Look at lock contention and thread pools (a thread dump with jstack) and at the latency of what the handler calls."),
	})

func offCPU(c *context) []ranked {
	in, tw := c.in, c.tw
	if ledgerTime(in) != nil || atCPUBudget(in) {
		// The request ledger says where the time goes, every millisecond
		// owned once; at the budget the waiting is behind the service's
		// own CPU (cpu-bound), not I/O.
		return nil
	}
	lat, cpuMs, ok := offCPUTimes(c)
	if !ok || contends(in, runqueueOf(in), lat, cpuMs) {
		return nil // contentionRule says it
	}
	// Waiting for a CPU is not I/O or lock waiting: it is left out of
	// what this finding blames on I/O.
	rq := runqueueOf(in)
	if lat-rq.ms() < offCPUMinRatio*cpuMs {
		return nil
	}
	if tw.explained >= offExplainedShare*(lat-cpuMs-rq.ms()) {
		return nil // the wall-time findings say it better
	}
	off := 1 - cpuMs/lat
	f := runfmt.Finding{Kind: runfmt.FindingOffCPU, Figures: runfmt.Figures{runfmt.FigLatency: 1000 * lat, runfmt.FigCPU: 1000 * cpuMs, runfmt.FigOffShare: off}}
	if rq.ms() > 0 {
		rq.figures(f.Figures, runfmt.FigRunqueue)
		f.Figures[runfmt.FigOtherWait] = 1000 * (lat - cpuMs - rq.ms())
	}
	if q := in.Quality; q.Noisy() {
		noiseFigures(&f, q)
	}
	names := make([]string, 0, len(in.Load.Phases))
	for n := range in.Load.Phases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f.Evidence.Phases = append(f.Evidence.Phases, runfmt.Part{Name: n, UsPerRequest: 1000 * in.Load.Phases[n].Mean})
	}
	if c.cpu.Costs != nil {
		f.Figures[runfmt.FigSyscallShare] = c.cpu.Share(c.cpu.CumOf(syscallFrames))
	}
	tw.explain(in, &f, lat-cpuMs)
	return []ranked{{f: f, rank: off}}
}

// explain records what the off-CPU time (offMs per request) turned out to
// be: the time split and the wall-time findings when there is a wall-time
// profile, else the kernel's view of where threads waited, else what was
// checked and what could not be.
func (tw *timeWaits) explain(in FindingInput, f *runfmt.Finding, offMs float64) {
	if t := in.Time; t != nil && tw.v != nil {
		for _, k := range t.Kinds {
			if k.MsPerRequest >= timeKindMinMs {
				f.Evidence.Time = append(f.Evidence.Time, runfmt.Part{Name: string(k.Kind), UsPerRequest: 1000 * k.MsPerRequest})
			}
		}
		f.Settings = f.Settings.With(runfmt.SettingSource, string(t.Source))
		f.Figures[runfmt.FigTraced], f.Figures[runfmt.FigTracedRequests] = t.Seconds, float64(t.Requests)
		explained := tw.explained
		if st, ok := newSchedTime(in, tw); ok && st.total() >= waitMinShare*offMs {
			f.Figures[runfmt.FigSchedWait] = 1000 * st.total()
			if in.Target != nil && in.Target.RunqueueWaitSeconds > 0 {
				f.Figures[runfmt.FigRunqueueTime] = in.Target.RunqueueWaitSeconds
			}
			explained += st.total()
		}
		if tw.explained > 0 {
			f.Figures[runfmt.FigExplained], f.Figures[runfmt.FigUnexplained] = 1000*tw.explained, 1000*max(0, offMs-explained)
		}
		if t.TotalMs < 0.5*offMs { // the rest is outside the service
			f.Figures[runfmt.FigTracedTotal] = 1000 * t.TotalMs
		}
		return
	}
	if in.Wall != nil && in.Time == nil && in.Requests > 0 {
		if sites := offCPUSites(in); len(sites) > 0 {
			f.Evidence.Functions = sites
			return
		}
	}
	f.Evidence.Notes = in.WaitChecks
	goService := in.Runtime == "" || in.Runtime == runfmt.RuntimeGo
	if goService && in.Mutex == nil && in.Block == nil {
		f.Settings = f.Settings.With(runfmt.SettingLockProfiles, runfmt.SettingOff)
	}
	if !goService {
		f.Advice = waitAdvice(in.Runtime) // what to look at next, in its terms
	}
}

// waitAdvice is where to look next for time spent off-CPU, in the terms
// of the service's runtime: a pre-fork Python or Ruby server queues
// requests behind busy workers, node blocks its event loop. (Go's mutex
// and block profiles are among what was checked.)
var waitAdvice = runtimeAdvice{scripts: runfmt.AdviceCheckWorkers, node: runfmt.AdviceCheckEventLoop,
	jvm: runfmt.AdviceCheckThreads, other: runfmt.AdviceCheckLocks}.of

// offCPUSites are the user functions with the most time off a CPU in a
// wall-time profile, with their waits.
func offCPUSites(in FindingInput) []runfmt.FuncEvidence {
	v := analysis.NewWaitView(in.Wall, in.Requests, in.UserCode)
	if v == nil {
		return nil
	}
	var all []runfmt.FuncEvidence
	for name, c := range v.Classes {
		if name == runfmt.WaitCPU {
			continue
		}
		for _, s := range c.Sites(offSitesPerWait) {
			all = append(all, runfmt.FuncEvidence{Role: runfmt.RoleSite, Function: s.Func, File: s.File, Wait: name,
				Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 1000 * v.Ms(s.Ns)}})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].Figures[runfmt.FigWaitPerRequest], all[j].Figures[runfmt.FigWaitPerRequest]
		if a != b {
			return a > b
		}
		return all[i].Function < all[j].Function
	})
	return all[:min(len(all), offSitesNamed)]
}

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

// noiseFigures are the figures of what made the machine noisy while the
// finding was measured (q's causes): the other processes' cores (and the
// busiest of them), the hypervisor's, perflab's when the load generator
// waited for a CPU.
func noiseFigures(f *runfmt.Finding, q *runfmt.Quality) {
	for _, c := range q.Causes {
		switch c {
		case runfmt.NoiseOtherProcesses:
			f.Figures[runfmt.FigOtherCores], f.Figures[runfmt.FigHostCores] = q.OtherCores, float64(q.HostCores)
			f.Evidence.Processes = q.TopOther[:min(len(q.TopOther), processesNamed)]
		case runfmt.NoiseSteal:
			f.Figures[runfmt.FigStealCores] = q.StealCores
		case runfmt.NoiseGeneratorWaited:
			f.Figures[runfmt.FigPerflabCores] = q.PerflabCores
		}
	}
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
