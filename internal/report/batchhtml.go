package report

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// batchHTML fills the report's cards and verdict for a batch program's
// run (perflab run -- CMD without a URL): its totals, no series.
func (v *htmlView) batchHTML(r *runfmt.Run) {
	b := r.Batch
	v.NoCharts = "A batch program's run: its figures are the totals of its run, from start to exit (no load, no series)."
	if ExitedAtOnce(b) {
		v.Cards, v.Verdict = nil, []kv{{"Program", fmt.Sprintf("exited at once (%s, after %s): %s", b.ExitStatus, seconds(b.WallS), strings.Join(b.LastLines, " | "))}}
		return
	}
	busy := fmt.Sprintf("%.2f", b.CoresMean)
	v.Cards = []card{
		{Label: "Wall time", Value: seconds(b.WallS), Note: batchEnd(b)},
		{Label: "CPU", Value: seconds(b.CPUS), Note: fmt.Sprintf("user %s, system %s", seconds(b.UserS), seconds(b.SystemS))},
		{Label: "Cores busy", Value: busy + " of " + fmt.Sprint(b.Cores.Usable), Note: "CPU over wall time", Warn: hasFinding(r, runfmt.FindingSerial)},
		{Label: "Peak RSS", Value: units.FormatBytes(float64(b.RSSMaxBytes)), Note: "VmHWM of its processes"},
	}
	if b.Cores.BudgetCores > 0 {
		v.Cards = append(v.Cards, card{Label: "Throttled", Value: units.FormatPct(b.ThrottledPct), Note: "of periods, " + seconds(b.ThrottledS),
			Warn: throttlingFound(r) || hasFinding(r, runfmt.FindingCPUBound)})
	}
	v.Verdict = []kv{{"Command", strings.Join(r.Config.Command, " ")}, {"Cores", BatchCoresText(b)}, {"Threads", BatchThreadsText(b)}}
	if b.GCPct != nil {
		v.Verdict = append(v.Verdict, kv{"GC", fmt.Sprintf("%s of its CPU (the CPU profile)", units.FormatPct(*b.GCPct))})
	}
	if b.Cost != nil {
		v.Verdict = append(v.Verdict, kv{"Measuring", BatchCostText(b.Cost)})
	}
	if len(b.LastLines) > 0 {
		v.Verdict = append(v.Verdict, kv{"Last lines", strings.Join(b.LastLines, " | ")})
	}
}

func hasFinding(r *runfmt.Run, k runfmt.FindingKind) bool {
	for _, f := range r.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}
