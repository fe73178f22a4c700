package findings

import "perflab/internal/runfmt"

// startupMinShare is the share of the measured CPU from which start-up
// work in the window is a finding.
const startupMinShare = 0.05

// startupFinding reports start-up work done in the window, which is not a
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
