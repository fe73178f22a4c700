package prose

import "perflab/internal/runfmt"

// spinWaitWords word CPU the runtime burnt spinning while it waited for
// another thread.
var spinWaitWords = oneKind(runfmt.FindingSpinWait, spinWaitTitle, spinWaitDetail, advices{
	runfmt.AdviceFewerThreadsThanCores: fixed("Give the service cores of its own while you measure (stop other work, or pin it apart with taskset or a cpuset), " +
		"and keep GOMAXPROCS at most the cores it can run on: a spinning thread waits for one the kernel is not running."),
})

// "spin-wait: 92% of CPU, 26.80 ms/request, the runtime waiting for other threads"
func spinWaitTitle(v view, p *Prose) {
	p.say("%v: %v of CPU", word(string(runfmt.FindingSpinWait)), v.fig(runfmt.FigShare))
	if v.has(runfmt.FigCPUPerRequest) {
		p.say(", %v/request", v.fig(runfmt.FigCPUPerRequest))
	}
	p.words(", the runtime waiting for other threads")
}

func spinWaitDetail(v view, p *Prose) {
	p.say("The runtime spent %v of the CPU spinning while it waited for another thread, in ", v.fig(runfmt.FigShare))
	es := v.funcs(runfmt.RoleEntry)
	p.join(", ", len(es), func(i int) {
		p.say("%v %v (%v)", code(es[i].Function), efig(es[i], runfmt.FigShare), word(spinnerWhat(es[i].Function)))
	})
	p.say(". This CPU waited and did no work: the GC's share leaves it out, and the CPU ledger gives it an owner of its own (%v).", word(string(runfmt.OwnerSpin)))
	if v.has(runfmt.FigRunqueueTime) && v.val(runfmt.FigRunqueueTime) >= v.val(runfmt.FigCPUTime) {
		p.say(" The service's threads waited %v for a CPU in the window, more than the %v they ran: the threads waited for were off a CPU themselves, "+
			"so the spin is the crowded machine's, and the CPU per request is larger by it than on cores of its own.",
			v.fig(runfmt.FigRunqueueTime), v.fig(runfmt.FigCPUTime))
	}
}

// spinnerWhat says what a spinner waits for.
func spinnerWhat(name string) string {
	switch name {
	case "runtime.suspendG":
		return "a goroutine to stop, for the GC to scan its stack or to preempt it"
	case "runtime.casgstatus":
		return "the scan of a goroutine's stack to end"
	case "runtime.lock2":
		return "a runtime lock's holder"
	case "runtime.unlock2":
		return "the release of a runtime lock other threads spin on"
	case "runtime.runqgrab":
		return "a P about to run a goroutine, to steal it"
	}
	return "another thread"
}
