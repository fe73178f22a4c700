package findings

import "perflab/internal/runfmt"

// startupMinShare is the share of the measured CPU from which start-up
// work in the window is a finding.
const startupMinShare = 0.05

// startupRule reports start-up work done in the window, which is not a
// cost of each request and no function's to optimise: the CPU processes
// started during the window (workers recycled after so many requests, a
// pool that grew) used before any profiler could attach to them, measured
// from /proc as each was first sampled and in no sample (the CPU
// account's row); and the samples that import modules (a new worker
// importing the app, a handler importing lazily on its first request).
// A worker is a process the service started in the window that runs an
// executable the service ran before it (package profiling): a process of
// another program, which a service may start per request, is not
// start-up.
var startupRule = oneKind(runfmt.FindingStartup, startupFinding, startupTitle, startupDetail,
	advices{runfmt.AdviceStartWarm: startWarmAdvice, runfmt.AdviceImportEarly: fixed(
		"Import at module level rather than inside handlers, and warm the service up before measuring (--warmup) so that the window holds requests, not imports.")})

func startupFinding(c *context) []ranked {
	in, v := c.in, c.cpu
	unsampledMs, started, unsampledS := 0.0, 0, 0.0
	if pr, l := in.Profiling, in.Ledger; pr != nil && l != nil && l.CPU != nil {
		unsampledMs, started, unsampledS = l.CPU.UnsampledStartMs, pr.UnsampledStartProcesses, pr.UnsampledStartCPUSeconds
	}
	importShare := 0.0
	if v.Costs != nil {
		importShare = v.Share(v.Costs.Importing())
	}
	measuredMs := v.UsPerRequest / 1000
	if measuredMs <= 0 || unsampledMs <= 0 && importShare <= 0 {
		return nil
	}
	share := unsampledMs/measuredMs + importShare
	if share < startupMinShare {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingStartup, Advice: runfmt.AdviceImportEarly, Figures: runfmt.Figures{
		runfmt.FigCPUPerRequest: 1000 * unsampledMs, runfmt.FigShare: share,
	}}
	f.Figures[runfmt.FigCPUPerRequest] += v.Us(importShare)
	if importShare > 0 {
		f.Figures[runfmt.FigImportShare] = importShare
	}
	if unsampledMs > 0 {
		f.Advice = runfmt.AdviceStartWarm
		f.Figures[runfmt.FigStarted], f.Figures[runfmt.FigCPUTime] = float64(started), unsampledS
	}
	f.Settings = f.Settings.With(runfmt.SettingRuntime, string(in.Runtime))
	return []ranked{{f: f, rank: f.Figures[runfmt.FigCPUPerRequest]}}
}

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
