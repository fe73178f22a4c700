package findings

import "perflab/internal/runfmt"

// OutOfMemory is the finding of a run whose service the kernel's OOM
// killer killed at its memory budget, from its target summary; false
// when it was not.
func OutOfMemory(t *runfmt.TargetSummary) (runfmt.Finding, bool) {
	if t == nil || !t.OOMKilled || t.MemoryLimitBytes <= 0 {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{Kind: runfmt.FindingOutOfMemory, Advice: runfmt.AdviceMoreMemory, Figures: runfmt.Figures{
		runfmt.FigMemoryLimit: float64(t.MemoryLimitBytes),
	}}
	if t.RSSMaxBytes > 0 {
		f.Figures[runfmt.FigRSSPeak] = float64(t.RSSMaxBytes)
	}
	return f, true
}
