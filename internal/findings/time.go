package findings

import (
	"fmt"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
	"perflab/internal/units"
)

// Thresholds of the wall-time rules.
const (
	waitMinShare = 0.10 // of a request's traced time
	waitMinMs    = 0.02 // below this per request a wait is noise
)

// waitRule turns the time in some wait classes into a finding.
type waitRule struct {
	kind    runfmt.FindingKind
	classes []runfmt.Wait
	// title is the finding's title for the top analysis.WaitSite and its ms/request.
	title  func(s analysis.WaitSite, ms string) string
	advice string
}

var waitRules = []waitRule{
	{runfmt.FindingDownstreamWait, []runfmt.Wait{runfmt.WaitDownstream},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("downstream wait in %s: %s/request%s", s.Func, ms, inCallee(s.Callee))
		},
		"Call it concurrently with other work, cache its answers, batch the calls, or make the other service faster; give the call a timeout."},
	{runfmt.FindingLockContention, []runfmt.Wait{runfmt.WaitLock, runfmt.WaitCond},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("lock contention in %s: %s/request waiting%s", s.Func, ms, inCallee(s.Callee))
		},
		"Hold the lock for less time (move work out of the critical section), shard it, use an RWMutex for readers, or avoid shared state on the request path."},
	{runfmt.FindingPoolWait, []runfmt.Wait{runfmt.WaitPool},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("pool wait in %s: %s/request waiting for a connection or slot%s", s.Func, ms, inCallee(s.Callee))
		},
		"The pool (or semaphore) is smaller than the concurrency, or its connections are held too long: raise its size (sql.DB.SetMaxOpenConns, http.Transport.MaxConnsPerHost) or release connections sooner."},
	{runfmt.FindingSyncWait, []runfmt.Wait{runfmt.WaitChannel, runfmt.WaitGroup, runfmt.WaitSync},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("sync wait in %s: %s/request%s", s.Func, ms, inCallee(s.Callee))
		},
		"The request waits for another goroutine (a channel, a select, a WaitGroup): look at what that goroutine does, or whether the request needs to wait for it at all."},
	{runfmt.FindingSleep, []runfmt.Wait{runfmt.WaitSleep},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("sleep on the request path in %s: %s/request%s", s.Func, ms, inCallee(s.Callee))
		},
		"A sleep in a handler is a retry backoff, a rate limiter, a polling loop or a leftover: remove it, or wait on the event itself."},
	{runfmt.FindingSyscallWait, []runfmt.Wait{runfmt.WaitSyscall},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("system calls in %s: %s/request%s", s.Func, ms, inCallee(s.Callee))
		},
		"Blocking system calls (file I/O, DNS through cgo, fsync) hold a thread each: cache what is read, or move the work off the request path."},
	{runfmt.FindingClientIO, []runfmt.Wait{runfmt.WaitClient},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("the client's connection in %s: %s/request reading its body or writing the response%s", s.Func, ms, inCallee(s.Callee))
		},
		"The request's own connection is slow: a large upload or download, a slow client or network. Stream instead of buffering, and set server read/write timeouts."},
	// Assists are CPU work, in the CPU profile's GC share; pauses are not.
	{runfmt.FindingGCPause, []runfmt.Wait{runfmt.WaitGCStop, runfmt.WaitGCWait},
		func(s analysis.WaitSite, ms string) string {
			return fmt.Sprintf("garbage collection in requests: %s/request", ms)
		},
		"Allocate less on the request path (see the allocation findings), or give the heap more room (a higher GOGC, or a GOMEMLIMIT with headroom)."},
}

func inCallee(callee string) string {
	if callee == "" {
		return ""
	}
	return " in " + callee
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
	for _, rule := range waitRules {
		if f, ok := tw.rule(in, rule); ok {
			tw.found = append(tw.found, ranked{f, f.WaitUsPerRequest})
			tw.explained += f.WaitUsPerRequest / 1000
		}
	}
	return tw
}

// rule applies one wait rule.
func (tw *timeWaits) rule(in FindingInput, rule waitRule) (runfmt.Finding, bool) {
	v := tw.v
	ns := v.Sum(rule.classes...)
	ms := v.Ms(ns)
	if ms < waitMinMs || float64(ns) < waitMinShare*float64(v.TotalNs) {
		return runfmt.Finding{}, false
	}
	if rule.kind == runfmt.FindingSyscallWait && runqueueOf(in).serviceMs >= 0.5*ms {
		// A thread in a system call waits for a CPU like any other: on a
		// machine that starves the service this is CPU contention.
		return runfmt.Finding{}, false
	}
	var top *analysis.WaitClass
	var blocked, runnable int64
	for _, name := range rule.classes {
		c := v.Classes[name]
		if c == nil {
			continue
		}
		blocked += c.BlockedNs
		runnable += c.RunnableNs
		if top == nil || c.Costs.Total() > top.Costs.Total() {
			top = c
		}
	}
	var sites []analysis.WaitSite
	switch {
	case rule.kind == runfmt.FindingGCPause:
		// the collector stops every goroutine wherever it is: no analysis.WaitSite
	default:
		if sites = top.Sites(3); len(sites) == 0 {
			return runfmt.Finding{}, false // no user code waits: nothing to name
		}
	}
	f := runfmt.Finding{Kind: rule.kind, WaitUsPerRequest: 1000 * ms}
	msText := units.FormatMs(ms)
	s := analysis.WaitSite{Func: "requests"}
	if len(sites) > 0 {
		s = sites[0]
		f.Functions = append(f.Functions, s.Func)
		if s.Callee != "" {
			f.Functions = append(f.Functions, s.Callee)
		}
	}
	f.Title = rule.title(s, msText)
	f.Share = float64(ns) / float64(v.TotalNs)
	var d strings.Builder
	fmt.Fprintf(&d, "A request spends %s here (%.0f%% of its traced time", msText, 100*f.Share)
	if runnable > 0 {
		fmt.Fprintf(&d, ": %s blocked, %s runnable after", units.FormatMs(v.Ms(blocked)), units.FormatMs(v.Ms(runnable)))
	}
	d.WriteString(").")
	if len(sites) > 0 {
		var parts []string
		for _, st := range sites {
			p := fmt.Sprintf("%s %s", analysis.FuncLabel(st.Func, st.File), units.FormatMs(v.Ms(st.Ns)))
			if st.Callee != "" {
				p += " in " + st.Callee
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(&d, " Where: %s.", strings.Join(parts, "; "))
	}
	tw.detail(&d, in, rule)
	d.WriteString(" " + rule.advice)
	f.Detail = d.String()
	return f, true
}

// detail adds what is known beyond the stacks: the peers of a downstream
// wait, the holders of a lock, the collector's stops.
func (tw *timeWaits) detail(d *strings.Builder, in FindingInput, rule waitRule) {
	switch rule.kind {
	case runfmt.FindingDownstreamWait:
		if len(in.Peers) > 0 {
			fmt.Fprintf(d, " The service's outbound connections in the window: %s.", strings.Join(in.Peers, ", "))
		}
	case runfmt.FindingLockContention:
		if h := holders(in, tw.v.Requests); h != "" {
			fmt.Fprintf(d, " The waits ended where the lock was released: %s (the code holding it).", h)
		}
	case runfmt.FindingGCPause:
		if s := in.Time.Scheduler; s != nil {
			fmt.Fprintf(d, " The world was stopped %.2f ms by the collector over %d cycles in the %.1f s traced.", s.GCStopMs, s.GCCycles, in.Time.Seconds)
		}
	}
}

// holders names the user functions that released the waited-for locks.
func holders(in FindingInput, requests int64) string {
	if in.Holders == nil || len(in.Holders.Sample) == 0 {
		return ""
	}
	s := stacks.FromProfile(in.Holders)
	c := analysis.NewCosts(s, 0, in.UserCode, nil)
	var parts []string
	for _, f := range c.Ranked(true, 2) {
		parts = append(parts, fmt.Sprintf("%s (%.0f%% of the wait)", s.Funcs[f].Name, analysis.Pct(c.Charged(f), c.Total())))
	}
	return strings.Join(parts, ", ")
}
