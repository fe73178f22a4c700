package prose

import "perflab/internal/runfmt"

// waitKinds are the words of each kind of wait a wall-time profile
// gives: its title, which reads "... %v ... %v" (the function that waits
// most, and the time per request; only the time for the collector's
// pauses, which stop every request wherever it is), the call it waits in
// following; and the words of its advice.
var waitKinds = []struct {
	kind   runfmt.FindingKind
	title  string
	key    runfmt.Advice
	advice string
}{
	{runfmt.FindingDownstreamWait, "downstream wait in %v: %v/request",
		runfmt.AdviceCallConcurrent, "Call it concurrently with other work, cache its answers, batch the calls, or make the other service faster; give the call a timeout."},
	{runfmt.FindingLockContention, "lock contention in %v: %v/request waiting",
		runfmt.AdviceShortenLocks, "Hold the lock for less time (move work out of the critical section), shard it, use an RWMutex for readers, or avoid shared state on the request path."},
	{runfmt.FindingPoolWait, "pool wait in %v: %v/request waiting for a connection or slot",
		runfmt.AdviceSizePool, "The pool (or semaphore) is smaller than the concurrency, or its connections are held too long: raise its size (sql.DB.SetMaxOpenConns, http.Transport.MaxConnsPerHost) or release connections sooner."},
	{runfmt.FindingSyncWait, "sync wait in %v: %v/request",
		runfmt.AdviceWaitLess, "The request waits for another goroutine (a channel, a select, a WaitGroup): look at what that goroutine does, or whether the request needs to wait for it at all."},
	{runfmt.FindingSleep, "sleep on the request path in %v: %v/request",
		runfmt.AdviceRemoveSleep, "A sleep in a handler is a retry backoff, a rate limiter, a polling loop or a leftover: remove it, or wait on the event itself."},
	{runfmt.FindingSyscallWait, "system calls in %v: %v/request",
		runfmt.AdviceAvoidSyscalls, "Blocking system calls (file I/O, DNS through cgo, fsync) hold a thread each: cache what is read, or move the work off the request path."},
	{runfmt.FindingClientIO, "the client's connection in %v: %v/request reading its body or writing the response",
		runfmt.AdviceStreamBodies, "The request's own connection is slow: a large upload or download, a slow client or network. Stream instead of buffering, and set server read/write timeouts."},
	{runfmt.FindingGCPause, "garbage collection in requests: %v/request",
		runfmt.AdviceHeapRoom, "Allocate less on the request path (see the allocation findings), or give the heap more room (a higher GOGC, or a GOMEMLIMIT with headroom)."},
}

// waitWords word the waits of a wall-time profile; a lock finding of the
// mutex and block profiles reads as its wall-time counterpart (see
// lockprofile.go).
func waitWords() words {
	kinds := map[runfmt.FindingKind]wording{}
	for _, k := range waitKinds {
		w := wording{title: waitTitle(k.title), detail: waitDetail, advice: advices{k.key: fixed(k.advice)}}
		if k.kind == runfmt.FindingLockContention {
			w = lockWording(w)
		}
		kinds[k.kind] = w
	}
	return words{kinds: kinds}
}

// waitTitle reads "downstream wait in main.fetch: 20.00 ms/request in
// net/http.(*Client).Get".
func waitTitle(title string) func(view, *Prose) {
	return func(v view, p *Prose) {
		c := v.culprit()
		if c.Function == "" {
			p.say(title, v.fig(runfmt.FigWaitPerRequest))
			return
		}
		p.say(title, code(c.Function), v.fig(runfmt.FigWaitPerRequest))
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
