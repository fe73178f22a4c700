package prose

import (
	"path"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
)

// stuckWords word the finding of a run whose requests stopped finishing
// (package findings' Stuck makes it, from the snapshot of the service's
// threads).
var stuckWords = words{
	kinds: map[runfmt.FindingKind]wording{runfmt.FindingStuck: {
		title:  stuckTitle,
		detail: stuckDetail,
		advice: advices{
			runfmt.AdviceFreePoolSlots: fixed("The pool's holders do not give their slots back: see what they wait on, and bound how long one may keep a slot."),
			runfmt.AdviceCallTimeouts:  fixed("A downstream that never answers holds every request: give each call to it a timeout (a socket timeout, a context deadline), so a hung peer fails requests instead of holding them."),
			runfmt.AdviceReleaseLocks:  fixed("A lock or channel nobody releases: find what holds it (a lock taken twice on one path, an unlock skipped on an early return, a channel nobody sends on)."),
			runfmt.AdviceEndRetries:    fixed("They sleep: a retry or back-off loop without end?"),
			runfmt.AdviceEndLoops:      fixed("They run: a loop without end on the request path?"),
			runfmt.AdviceUnstallGC: fixed("They wait for the garbage collector to start a cycle or stop the world, and it waits for every goroutine to stop: " +
				"on a crowded machine one whose thread the kernel does not run holds them all (a spin-wait finding then says so). " +
				"Give the service cores of its own, or measure it alone."),
		},
	}},
}

// stuckTitle is where the biggest group in the service's code waits,
// that none was on a request, or that no stack could be read.
func stuckTitle(v view, p *Prose) {
	if gs := v.f.Evidence.Groups; len(gs) > 0 && gs[0].Idle {
		p.words("requests stopped finishing, and no thread was on a request in the service's code when its stacks were read")
		return
	} else if len(gs) > 0 {
		stuckGroup(p, gs[0])
		return
	}
	p.words("requests stopped finishing, and no thread's stack could be read")
}

// stuckDetail is why the snapshot was taken, the groups that wait with
// the biggest, and what the snapshot could not read. A finding before
// schema 5 has why as its first note.
func stuckDetail(v view, p *Prose) {
	notes := v.f.Evidence.Notes
	switch {
	case v.has(runfmt.FigInFlight):
		var why Prose
		stuckReason(v, &why)
		why[0].Text = capitalize(why[0].Text)
		*p = append(*p, why...)
		p.words(".")
	case len(notes) > 0:
		p.words(capitalize(notes[0]) + ".")
		notes = notes[1:]
	}
	gs := v.f.Evidence.Groups
	if len(gs) > 0 && gs[0].Idle {
		p.words(" The requests in flight had not reached its code (they wait in its sockets' queues), or the stall had passed. Its biggest wait: ")
		stuckGroup(p, gs[0])
		p.words(".")
	}
	for i, g := range gs {
		if i > 0 {
			p.words(" Also: ")
			stuckGroup(p, g)
			p.words(".")
		}
	}
	for _, n := range notes {
		p.words(" " + sentence(n))
	}
}

// sentence is s capitalized and ending in a period.
func sentence(s string) string {
	if s = capitalize(s); s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// StuckGroupText says where a group of threads waits, in one sentence:
// "47 goroutines wait in sync.(*Mutex).Lock at store.go:88 (under
// main.(*store).Put)", "8 threads wait in recvfrom on a socket to
// 127.0.0.1:9999 at server.py:31 (under fetch_quote)", "pool exhausted: 6
// threads wait for a slot in Semaphore.acquire at pool.py:4 (under
// call_peer); 2 hold one".
func StuckGroupText(g runfmt.StuckGroup) string {
	var p Prose
	stuckGroup(&p, g)
	return p.Text()
}

func stuckGroup(p *Prose, g runfmt.StuckGroup) {
	if g.Pool {
		p.words("pool exhausted: ")
	}
	p.say("%v %v %v", fig(runfmt.FigCount, float64(g.Count)), word(CountWord(g.Unit, g.Count)), word(CountWord(stuckVerb(g.Wait), g.Count)))
	if g.Pool {
		p.words(" for a slot")
	}
	if g.Wait == runfmt.TimeGC {
		p.words(" for the garbage collector")
	}
	if g.Blocking != "" {
		p.say(" in %v", code(g.Blocking))
	}
	if g.Peer != "" {
		p.say(" on a socket to %v", code(g.Peer))
	}
	if g.Located() {
		p.say(" at %v (under %v", code(where(g.File, g.Line)), code(g.Function))
		if g.Caller != "" {
			p.say(", called from %v at %v", code(g.Caller), code(where(g.CallerFile, g.CallerLine)))
		}
		p.words(")")
	} else if g.State != "" && g.State != g.Blocking {
		p.say(" [%v]", word(g.State))
	}
	if g.Pool && g.Holders > 0 {
		p.say("; %v %v one", fig(runfmt.FigCount, float64(g.Holders)), word(CountWord("holds", g.Holders)))
	} else if g.Pool {
		p.words("; no holder seen")
	}
	if g.WaitMinutes > 0 {
		p.say(", for %v min or more", fig(runfmt.FigCount, float64(g.WaitMinutes)))
	}
}

// stuckVerb is what threads in a kind of wait do, in the plural.
func stuckVerb(wait runfmt.TimeKind) string {
	if wait == runfmt.TimeRunning || wait == runfmt.TimeRunnable {
		return "run"
	}
	return "wait"
}

// CountWord gives a noun its plural, or a verb its singular, for n:
// "goroutine" → "goroutines", "wait" → "waits" when n is 1, "holds" →
// "hold" when n is not.
func CountWord(word string, n int) string {
	switch word {
	case "wait", "run":
		if n == 1 {
			return word + "s"
		}
		return word
	case "holds":
		if n == 1 {
			return word
		}
		return "hold"
	}
	switch {
	case n == 1:
		return word
	case word == "thread and goroutine":
		return "threads and goroutines"
	}
	return word + "s"
}

// where is "store.go:88", or the file alone when the line is unknown.
func where(file string, line int) string {
	if line == 0 {
		return path.Base(file)
	}
	return path.Base(file) + ":" + strconv.Itoa(line)
}

// stuckReason says why the snapshot was taken, from stuckFigures'
// figures: "no request finished for 1.60 s with 2 in flight", "the
// window ended with 40 requests unfinished and 12 finished". The figures
// read as words, as the snapshot's other notes do.
func stuckReason(v view, p *Prose) {
	as := func(f runfmt.Figure) Span { return word(FormatFigure(f, v.val(f))) }
	if v.has(runfmt.FigStalled) {
		p.say("no request finished for %v with %v in flight", as(runfmt.FigStalled), as(runfmt.FigInFlight))
		return
	}
	p.say("the window ended with %v requests unfinished and %v finished", as(runfmt.FigInFlight), as(runfmt.FigFinished))
}

// StuckReason says why st, a snapshot of a service whose requests stopped
// finishing, was taken, in the words of stuckReason (a snapshot before
// schema 5 kept its own).
func StuckReason(st *runfmt.Stuck) Prose {
	if st.Kind == "" {
		return Prose{word(st.Reason)}
	}
	f := runfmt.Finding{Figures: st.Figures()}
	var p Prose
	stuckReason(view{&f}, &p)
	return p
}
