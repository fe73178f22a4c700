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
// finding: its kind, the waits it counts, how it reads and its advice.
type waitKind struct {
	kind    runfmt.FindingKind
	classes []runfmt.Wait
	// title reads "... %v ... %v": the function that waits most, and
	// the time per request (only the time for the collector's pauses,
	// which stop every request wherever it is); the call it waits in
	// follows.
	title  string
	key    runfmt.Advice
	advice string
}

var waitKinds = []waitKind{
	{runfmt.FindingDownstreamWait, []runfmt.Wait{runfmt.WaitDownstream}, "downstream wait in %v: %v/request",
		runfmt.AdviceCallConcurrent, "Call it concurrently with other work, cache its answers, batch the calls, or make the other service faster; give the call a timeout."},
	{runfmt.FindingLockContention, []runfmt.Wait{runfmt.WaitLock, runfmt.WaitCond}, "lock contention in %v: %v/request waiting",
		runfmt.AdviceShortenLocks, "Hold the lock for less time (move work out of the critical section), shard it, use an RWMutex for readers, or avoid shared state on the request path."},
	{runfmt.FindingPoolWait, []runfmt.Wait{runfmt.WaitPool}, "pool wait in %v: %v/request waiting for a connection or slot",
		runfmt.AdviceSizePool, "The pool (or semaphore) is smaller than the concurrency, or its connections are held too long: raise its size (sql.DB.SetMaxOpenConns, http.Transport.MaxConnsPerHost) or release connections sooner."},
	{runfmt.FindingSyncWait, []runfmt.Wait{runfmt.WaitChannel, runfmt.WaitGroup, runfmt.WaitSync}, "sync wait in %v: %v/request",
		runfmt.AdviceWaitLess, "The request waits for another goroutine (a channel, a select, a WaitGroup): look at what that goroutine does, or whether the request needs to wait for it at all."},
	{runfmt.FindingSleep, []runfmt.Wait{runfmt.WaitSleep}, "sleep on the request path in %v: %v/request",
		runfmt.AdviceRemoveSleep, "A sleep in a handler is a retry backoff, a rate limiter, a polling loop or a leftover: remove it, or wait on the event itself."},
	{runfmt.FindingSyscallWait, []runfmt.Wait{runfmt.WaitSyscall}, "system calls in %v: %v/request",
		runfmt.AdviceAvoidSyscalls, "Blocking system calls (file I/O, DNS through cgo, fsync) hold a thread each: cache what is read, or move the work off the request path."},
	{runfmt.FindingClientIO, []runfmt.Wait{runfmt.WaitClient}, "the client's connection in %v: %v/request reading its body or writing the response",
		runfmt.AdviceStreamBodies, "The request's own connection is slow: a large upload or download, a slow client or network. Stream instead of buffering, and set server read/write timeouts."},
	// Assists are CPU work, in the CPU profile's GC share; pauses are not.
	// The collector stops every goroutine wherever it is: no site.
	{runfmt.FindingGCPause, []runfmt.Wait{runfmt.WaitGCStop, runfmt.WaitGCWait}, "garbage collection in requests: %v/request",
		runfmt.AdviceHeapRoom, "Allocate less on the request path (see the allocation findings), or give the heap more room (a higher GOGC, or a GOMEMLIMIT with headroom)."},
}

// waitRule reports the waits of a wall-time profile (see timeWaits); a
// lock finding of the mutex and block profiles reads as its wall-time
// counterpart (see lockprofile.go).
var waitRule = rule{find: func(c *context) []ranked { return c.tw.found }, words: waitWords()}

func waitWords() map[runfmt.FindingKind]wording {
	words := map[runfmt.FindingKind]wording{}
	for _, k := range waitKinds {
		w := wording{title: waitTitle(k), detail: waitDetail, advice: advices{k.key: fixed(k.advice)}}
		if k.kind == runfmt.FindingLockContention {
			w = lockWording(w)
		}
		words[k.kind] = w
	}
	return words
}

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

// waitTitle reads "downstream wait in main.fetch: 20.00 ms/request in
// net/http.(*Client).Get".
func waitTitle(k waitKind) func(view, *Prose) {
	return func(v view, p *Prose) {
		c := v.culprit()
		if c.Function == "" {
			p.say(k.title, v.fig(runfmt.FigWaitPerRequest))
			return
		}
		p.say(k.title, code(c.Function), v.fig(runfmt.FigWaitPerRequest))
		if c.Callee != "" {
			p.say(" in %v", code(c.Callee))
		}
	}
}

func waitDetail(v view, p *Prose) {
	of := "of its traced time"
	if v.set(runfmt.SettingWaitMethod) == runfmt.WaitFromLedger {
		of = "of its mean latency, its row of the request ledger"
	}
	p.say("A request spends %v here (%v "+of, v.fig(runfmt.FigWaitPerRequest), v.fig(runfmt.FigShare))
	if v.has(runfmt.FigRunnable) {
		p.say(": %v blocked, %v runnable after", v.fig(runfmt.FigBlocked), v.fig(runfmt.FigRunnable))
	}
	p.words(").")
	sites := append(v.funcs(runfmt.RoleCulprit), v.funcs(runfmt.RoleSite)...)
	if len(sites) > 0 {
		p.words(" Where: ")
		p.join("; ", len(sites), func(i int) {
			p.say("%v %v", code(label(sites[i])), efig(sites[i], runfmt.FigWaitPerRequest))
			if sites[i].Callee != "" {
				p.say(" in %v", code(sites[i].Callee))
			}
		})
		p.words(".")
	}
	if peers := v.f.Evidence.Peers; len(peers) > 0 {
		p.words(" The service's outbound connections in the window: ")
		p.join(", ", len(peers), func(i int) { p.say("%v", code(peers[i])) })
		p.words(".")
	}
	if hs := v.funcs(runfmt.RoleHolder); len(hs) > 0 {
		p.words(" The waits ended where the lock was released: ")
		p.join(", ", len(hs), func(i int) { p.say("%v (%v of the wait)", code(hs[i].Function), efig(hs[i], runfmt.FigShare)) })
		p.words(" (the code holding it).")
	}
	if v.has(runfmt.FigGCStop) {
		p.say(" The world was stopped %v by the collector over %v cycles in the %v traced.", v.fig(runfmt.FigGCStop), v.fig(runfmt.FigGCCycles), v.fig(runfmt.FigTraced))
	}
}
