package prose

import "perflab/internal/runfmt"

// throttledWords word the time requests lost to the CPU budget's
// throttling, its cause and the setting to try.
var throttledWords = oneKind(runfmt.FindingThrottled, throttledTitle, throttledDetail,
	advices{runfmt.AdviceMatchGOMAXPROCS: gomaxprocsAdvice, runfmt.AdviceThreadsToQuota: quotaAdvice})

// "throttled: 4.20 ms/request, GOMAXPROCS 2 above the 1-core budget"
func throttledTitle(v view, p *Prose) {
	p.say("throttled: %v/request", v.fig(runfmt.FigWaitPerRequest))
	if v.has(runfmt.FigGOMAXPROCS) {
		p.say(", GOMAXPROCS %v above the %v-core budget", v.fig(runfmt.FigGOMAXPROCS), v.fig(runfmt.FigCPULimit))
		return
	}
	p.say(", busy threads above the %v-core budget", v.fig(runfmt.FigCPULimit))
}

func throttledDetail(v view, p *Prose) {
	p.say("Requests waited %v each (%v of the mean latency, the request ledger's throttled row) while the cgroup was throttled: in %v of periods, %v in the window, at %v cores on average.",
		v.fig(runfmt.FigWaitPerRequest), v.fig(runfmt.FigShare), v.fig(runfmt.FigThrottled), v.fig(runfmt.FigThrottledTime), v.fig(runfmt.FigCoresMean))
	if v.has(runfmt.FigGOMAXPROCS) {
		p.say(" The cause: %v Ps (%v) run at once on what the %v-core budget allows; they spend each period's quota early and all wait for the next.",
			v.fig(runfmt.FigGOMAXPROCS), word(v.set(runfmt.SettingGOMAXPROCSSource)), v.fig(runfmt.FigCPULimit))
		return
	}
	p.words(" The cause: more of the service's threads run at once than the quota has cores; they spend each period's quota early and all wait for the next")
	if v.has(runfmt.FigThreadsMax) {
		p.say(" (it ran up to %v threads)", v.fig(runfmt.FigThreadsMax))
	}
	p.words(".")
}

// quotaAdvice is the setting to try, in the runtime's terms, and its
// expected effect.
func quotaAdvice(v view, p *Prose) {
	n := format(runfmt.MeasureCount, v.val(runfmt.FigGOMAXPROCSMatch))
	switch runfmt.Runtime(v.set(runfmt.SettingRuntime)) {
	case runfmt.RuntimePython:
		p.say("Run as many busy workers as the budget has cores (%v, or fewer threads per worker).", code("gunicorn -w "+n))
	case runfmt.RuntimeRuby:
		p.say("Run as many busy workers as the budget has cores (%v, fewer threads per worker).", code("puma -w "+n))
	case runfmt.RuntimeJVM:
		p.say("Size the JVM to the budget: %v sizes its GC and pools to it.", code("-XX:ActiveProcessorCount="+n))
	case runfmt.RuntimeNode:
		p.say("Run as many processes as the budget has cores (%v) and keep libuv's pool small.", code("cluster workers = "+n))
	case runfmt.RuntimeGo:
		p.say("Match GOMAXPROCS to the budget (%v) and bound the goroutines doing CPU work.", code("GOMAXPROCS="+n))
	default:
		p.say("Size the thread pools doing CPU work to the budget (%v threads).", code(n))
	}
	p.say(" Expected: the %v/request throttled goes, less what requests then wait in the service's own queue.", v.fig(runfmt.FigWaitPerRequest))
}
