package findings

import (
	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// Thresholds of the wall-time rules.
const (
	waitMinShare = 0.10 // of a request's traced time
	waitMinMs    = 0.02 // below this per request a wait is noise
	waitSites    = 3    // the places a wait finding names
)

// waitKind turns the time in some waits of a wall-time profile into a
// finding: its kind, the waits it counts and its advice (its words are
// package prose's).
type waitKind struct {
	kind    runfmt.FindingKind
	classes []runfmt.Wait
	key     runfmt.Advice
}

var waitKinds = []waitKind{
	{runfmt.FindingDownstreamWait, []runfmt.Wait{runfmt.WaitDownstream}, runfmt.AdviceCallConcurrent},
	{runfmt.FindingLockContention, []runfmt.Wait{runfmt.WaitLock, runfmt.WaitCond}, runfmt.AdviceShortenLocks},
	{runfmt.FindingPoolWait, []runfmt.Wait{runfmt.WaitPool}, runfmt.AdviceSizePool},
	{runfmt.FindingSyncWait, []runfmt.Wait{runfmt.WaitChannel, runfmt.WaitGroup, runfmt.WaitSync}, runfmt.AdviceWaitLess},
	{runfmt.FindingSleep, []runfmt.Wait{runfmt.WaitSleep}, runfmt.AdviceRemoveSleep},
	{runfmt.FindingSyscallWait, []runfmt.Wait{runfmt.WaitSyscall}, runfmt.AdviceAvoidSyscalls},
	{runfmt.FindingClientIO, []runfmt.Wait{runfmt.WaitClient}, runfmt.AdviceStreamBodies},
	// Assists are CPU work, in the CPU profile's GC share; pauses are not.
	// The collector stops every goroutine wherever it is: no site.
	{runfmt.FindingGCPause, []runfmt.Wait{runfmt.WaitGCStop, runfmt.WaitGCWait}, runfmt.AdviceHeapRoom},
}

// waitFindings are the waits of a wall-time profile (see timeWaits).
func waitFindings(c *context) []ranked { return c.tw.found }

// timeWaits are the findings a wall-time profile gives, and how much of a
// request's time they explain.
type timeWaits struct {
	v         *analysis.WaitView
	found     []ranked
	explained float64 // ms per request
}

func newTimeWaits(in FindingInput) *timeWaits {
	t := in.Time
	if t == nil || t.Requests <= 0 {
		return &timeWaits{}
	}
	v := analysis.NewWaitView(in.Wall, t.Requests, in.UserCode)
	if v == nil || v.TotalNs == 0 {
		return &timeWaits{}
	}
	tw := &timeWaits{v: v}
	for _, k := range waitKinds {
		if f, ok := tw.find(in, k); ok {
			us := f.Figures[runfmt.FigWaitPerRequest]
			tw.found = append(tw.found, ranked{f: f, rank: us})
		}
	}
	tw.found = claimRows(tw.found, in)
	for _, r := range tw.found {
		tw.explained += r.f.Figures[runfmt.FigWaitPerRequest] / 1000
	}
	return tw
}

// find applies one kind of wait.
func (tw *timeWaits) find(in FindingInput, k waitKind) (runfmt.Finding, bool) {
	v := tw.v
	ns := v.Sum(k.classes...)
	ms := v.Ms(ns)
	if ms < waitMinMs || float64(ns) < waitMinShare*float64(v.TotalNs) {
		return runfmt.Finding{}, false
	}
	if k.kind == runfmt.FindingSyscallWait && runqueueOf(in).serviceMs >= 0.5*ms {
		// A thread in a system call waits for a CPU like any other: on a
		// machine that starves the service this is CPU contention.
		return runfmt.Finding{}, false
	}
	var top *analysis.WaitClass
	var runnable int64
	for _, name := range k.classes {
		if c := v.Classes[name]; c != nil {
			runnable += c.RunnableNs
			if top == nil || c.Costs.Total() > top.Costs.Total() {
				top = c
			}
		}
	}
	f := runfmt.Finding{Kind: k.kind, Advice: k.key,
		Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 1000 * ms, runfmt.FigShare: float64(ns) / float64(v.TotalNs)}}
	if runnable > 0 {
		f.Figures[runfmt.FigBlocked], f.Figures[runfmt.FigRunnable] = 1000*v.Ms(ns-runnable), 1000*v.Ms(runnable)
	}
	if k.kind != runfmt.FindingGCPause {
		sites := top.Sites(waitSites)
		if len(sites) == 0 {
			return runfmt.Finding{}, false // no user code waits: nothing to name
		}
		for i, s := range sites {
			role := runfmt.RoleSite
			if i == 0 {
				role = runfmt.RoleCulprit
			}
			f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: role, Function: s.Func, File: s.File, Callee: s.Callee,
				Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 1000 * v.Ms(s.Ns)}})
		}
	}
	tw.evidence(&f, in)
	return f, true
}

// evidence adds what is known beyond the stacks: the peers of a
// downstream wait, the holders of a lock, the collector's stops.
func (tw *timeWaits) evidence(f *runfmt.Finding, in FindingInput) {
	switch f.Kind {
	case runfmt.FindingDownstreamWait:
		f.Evidence.Peers = in.Peers
	case runfmt.FindingLockContention:
		f.Evidence.Functions = append(f.Evidence.Functions, holders(in)...)
	case runfmt.FindingGCPause:
		if s := in.Time.Scheduler; s != nil {
			f.Figures[runfmt.FigGCStop], f.Figures[runfmt.FigGCCycles], f.Figures[runfmt.FigTraced] = 1000*s.GCStopMs, float64(s.GCCycles), in.Time.Seconds
		}
	}
}

// holders are the user functions that released the waited-for locks,
// with their share of the wait.
func holders(in FindingInput) []runfmt.FuncEvidence {
	if in.Holders == nil || len(in.Holders.Sample) == 0 {
		return nil
	}
	c := analysis.NewCosts(stacks.FromProfile(in.Holders), 0, in.UserCode, nil)
	var out []runfmt.FuncEvidence
	for _, f := range c.Ranked(true, 2) {
		out = append(out, runfmt.FuncEvidence{Role: runfmt.RoleHolder, Function: c.Name(f),
			Figures: runfmt.Figures{runfmt.FigShare: analysis.Pct(c.Charged(f), c.Total()) / 100}})
	}
	return out
}
