package findings

import (
	"math"

	"perflab/internal/answer"
	"perflab/internal/runfmt"
)

// throttledFinding reports the time requests lost to the CPU budget's
// throttling, from the ledger's throttled row, with its cause: GOMAXPROCS
// above the quota (a Go service the GOMAXPROCS rule did not already name),
// or more busy threads (workers, pools) than the quota's cores; and the
// setting to try.
func throttledFinding(c *context) []ranked {
	in, lt := c.in, ledgerTime(c.in)
	t := in.Target
	if lt == nil || t == nil || t.CPULimitCores <= 0 || foundKind(c.found, runfmt.FindingGOMAXPROCS) {
		return nil
	}
	// Throttled in a notable share of periods, the row is worth naming
	// however small a share of the latency it holds (other rows, such as
	// a system call the thread was throttled in, own the rest).
	ms, ok := rowsMs(lt, runfmt.PartThrottled)
	if !ok || !claimable(lt, ms) && (ms < waitMinMs || !answer.ThrottledNotable(t.ThrottledPct)) {
		return nil
	}
	match := float64(max(1, int(math.Ceil(t.CPULimitCores))))
	f := runfmt.Finding{Kind: runfmt.FindingThrottled, Advice: runfmt.AdviceThreadsToQuota, Figures: runfmt.Figures{
		runfmt.FigWaitPerRequest: 1000 * ms, runfmt.FigShare: ms / lt.LatencyMs, runfmt.FigCPULimit: t.CPULimitCores,
		runfmt.FigThrottled: t.ThrottledPct / 100, runfmt.FigThrottledTime: t.ThrottledSeconds, runfmt.FigCoresMean: t.CPUCoresMean,
		runfmt.FigGOMAXPROCSMatch: match,
	}}
	f.Settings = f.Settings.With(runfmt.SettingRuntime, string(in.Runtime)).With(runfmt.SettingWaitMethod, runfmt.WaitFromLedger)
	if g := in.GoRuntime; g != nil && g.GOMAXPROCS > int(match) {
		f.Advice = runfmt.AdviceMatchGOMAXPROCS
		f.Figures[runfmt.FigGOMAXPROCS] = float64(g.GOMAXPROCS)
		f.Settings = f.Settings.With(runfmt.SettingGOMAXPROCSSource, g.GOMAXPROCSSource).With(runfmt.SettingGOMAXPROCSEnv, g.GOMAXPROCSEnv)
	} else if t.ThreadsMax > 0 {
		f.Figures[runfmt.FigThreadsMax] = float64(t.ThreadsMax)
	}
	return []ranked{{f: f, rank: f.Figures[runfmt.FigWaitPerRequest]}}
}
