package findings

import (
	"cmp"
	"maps"
	"slices"

	"perflab/internal/runfmt"
)

// spinMinShare is the share of the CPU spent spinning from which the
// spins are a finding.
const spinMinShare = 0.10

// spinWaitFinding reports CPU the runtime burnt spinning while it waited for
// another thread (analysis's spinners): a GC mark worker waiting for a
// goroutine to stop, a thread waiting for a runtime lock. It is CPU that
// waits, not work: the GC's share and the CPU ledger's other owners leave
// it out (a function's own share, under which a lock was waited for,
// keeps it). When
// the service's threads waited for a CPU as long as they ran, the threads
// waited for were off a CPU themselves, and the spin is the crowded
// machine's.
func spinWaitFinding(c *context) []ranked {
	by := c.cpu.SpinShares()
	share := 0.0
	for _, s := range by {
		share += s
	}
	if share < spinMinShare {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingSpinWait, Advice: runfmt.AdviceFewerThreadsThanCores, Figures: runfmt.Figures{runfmt.FigShare: share}}
	if c.cpu.UsPerRequest > 0 {
		f.Figures[runfmt.FigCPUPerRequest] = c.cpu.Us(share)
	}
	if t := c.in.Target; t != nil && t.RunqueueWaitSeconds > 0 {
		f.Figures[runfmt.FigRunqueueTime], f.Figures[runfmt.FigCPUTime] = t.RunqueueWaitSeconds, t.CPUSeconds
	}
	names := slices.SortedFunc(maps.Keys(by), func(a, b string) int { return cmp.Compare(by[b], by[a]) })
	for _, name := range names {
		f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleEntry, Function: name,
			Figures: runfmt.Figures{runfmt.FigShare: by[name]}})
	}
	return []ranked{{f: f, rank: share}}
}
