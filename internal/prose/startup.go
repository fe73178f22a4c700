package prose

import "perflab/internal/runfmt"

// startupWords word start-up work done in the window, and how to start
// fewer workers in it or start them warm.
var startupWords = oneKind(runfmt.FindingStartup, startupTitle, startupDetail,
	advices{runfmt.AdviceStartWarm: startWarmAdvice, runfmt.AdviceImportEarly: fixed(
		"Import at module level rather than inside handlers, and warm the service up before measuring (--warmup) so that the window holds requests, not imports.")})

// "6 workers started during the window: start-up costs 1.50 ms/request (20% of CPU)"
// "importing modules costs 1.20 ms/request (16% of CPU): start-up work, not per request"
func startupTitle(v view, p *Prose) {
	if v.has(runfmt.FigStarted) {
		p.say("%v workers started during the window: start-up costs %v/request (%v of CPU)",
			v.fig(runfmt.FigStarted), v.fig(runfmt.FigCPUPerRequest), v.fig(runfmt.FigShare))
		return
	}
	p.say("importing modules costs %v/request (%v of CPU): start-up work, not per request", v.fig(runfmt.FigCPUPerRequest), v.fig(runfmt.FigShare))
}

func startupDetail(v view, p *Prose) {
	if v.has(runfmt.FigStarted) {
		p.say("Workers forked or replaced during the window (recycled after a number of requests, or a pool that grew) import and set up again before they serve. "+
			"%v of CPU went to that before the profiler could attach to them, read from /proc as each was first sampled: in no sample, and not spread over the profile's functions.",
			v.fig(runfmt.FigCPUTime))
		if v.has(runfmt.FigImportShare) {
			p.say(" ")
		}
	}
	if v.has(runfmt.FigImportShare) {
		p.say("Importing modules took %v of the CPU in the samples: it runs once per process, not on every request, so it is not charged to the function that imports.", v.fig(runfmt.FigImportShare))
	}
}

// startWarmAdvice says, in the runtime's terms, how to start fewer
// workers in the window or start them warm.
func startWarmAdvice(v view, p *Prose) {
	switch runfmt.Runtime(v.set(runfmt.SettingRuntime)) {
	case runfmt.RuntimePython:
		p.words("Recycle workers less often (a higher gunicorn --max-requests, with --max-requests-jitter so they do not restart together), or load the app before forking (gunicorn --preload) so that a new worker starts warm.")
	case runfmt.RuntimeRuby:
		p.words("Recycle workers less often (a worker killer's limits), or load the app before forking (puma's preload_app!) so that a new worker starts warm.")
	default:
		p.words("Recycle workers less often, keep the pool at its size under load, or load the application once before forking so that a new worker starts warm.")
	}
}
