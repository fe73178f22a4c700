package report

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// stuckRows is how many groups of a snapshot a verdict lists: those in
// the service's code, then the others up to this many.
const stuckRows = 6

// StuckGroupText says where a group of threads waits, in one sentence:
// "47 goroutines wait in sync.(*Mutex).Lock at store.go:88 (under
// main.(*store).Put)", "8 threads wait in recvfrom on a socket to
// 127.0.0.1:9999 at server.py:31 (under fetch_quote)", "pool exhausted: 6
// threads wait for a slot in Semaphore.acquire at pool.py:4 (under
// call_peer); 2 hold one".
func StuckGroupText(g runfmt.StuckGroup) string {
	var b strings.Builder
	if g.Pool {
		b.WriteString("pool exhausted: ")
	}
	fmt.Fprintf(&b, "%d %s %s", g.Count, countWord(g.Unit, g.Count), countWord(stuckVerb(g.Wait), g.Count))
	if g.Pool {
		b.WriteString(" for a slot")
	}
	if g.Blocking != "" {
		fmt.Fprintf(&b, " in %s", g.Blocking)
	}
	if g.Peer != "" {
		fmt.Fprintf(&b, " on a socket to %s", g.Peer)
	}
	if g.Located() {
		fmt.Fprintf(&b, " at %s (under %s", where(g.File, g.Line), g.Function)
		if g.Caller != "" {
			fmt.Fprintf(&b, ", called from %s at %s", g.Caller, where(g.CallerFile, g.CallerLine))
		}
		b.WriteString(")")
	} else if g.State != "" && g.State != g.Blocking {
		fmt.Fprintf(&b, " [%s]", g.State)
	}
	if g.Pool && g.Holders > 0 {
		fmt.Fprintf(&b, "; %d %s", g.Holders, countWord("holds", g.Holders)+" one")
	} else if g.Pool {
		b.WriteString("; no holder seen")
	}
	if g.WaitMinutes > 0 {
		fmt.Fprintf(&b, ", for %d min or more", g.WaitMinutes)
	}
	return b.String()
}

// stuckVerb is what threads in a kind of wait do, in the plural.
func stuckVerb(wait runfmt.TimeKind) string {
	if wait == runfmt.TimeRunning || wait == runfmt.TimeRunnable {
		return "run"
	}
	return "wait"
}

// countWord gives a noun its plural, or a verb its singular, for n:
// "goroutine" → "goroutines", "wait" → "waits" when n is 1, "holds" →
// "hold" when n is not.
func countWord(word string, n int) string {
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

// StuckTitle is the stuck finding's title: where the biggest group in the
// service's code waits, or that no stack could be read.
func StuckTitle(st *runfmt.Stuck) string {
	if len(st.Groups) == 0 {
		return "requests stopped finishing, and no thread's stack could be read"
	}
	return StuckGroupText(st.Groups[0])
}

// StuckDetail is the stuck finding's detail: why the snapshot was taken,
// the next groups, and the lever for the biggest one's kind of wait.
func StuckDetail(st *runfmt.Stuck) string {
	parts := []string{capitalize(st.Reason) + "."}
	for i, g := range st.Groups {
		if i > 0 && len(parts) < 3 && related(st.Groups[0], g) {
			parts = append(parts, "Also: "+StuckGroupText(g)+".")
		}
	}
	if len(st.Groups) > 0 {
		if lever := stuckLever(st.Groups[0]); lever != "" {
			parts = append(parts, lever)
		}
	}
	parts = append(parts, st.Notes...)
	return strings.Join(parts, " ")
}

// related tells whether g waits with top: in the same call, or one calls
// the other (the goroutine that holds a lock and waits for it again).
func related(top, g runfmt.StuckGroup) bool {
	if !g.Located() || g.Idle {
		return false
	}
	return g.Blocking == top.Blocking && g.Blocking != "" || g.Caller == top.Function || top.Caller == g.Function
}

// stuckLever is what to look for, by the kind of wait.
func stuckLever(g runfmt.StuckGroup) string {
	switch {
	case g.Pool:
		return "The pool's holders do not give their slots back: see what they wait on, and bound how long one may keep a slot."
	case g.Wait == runfmt.TimeNetwork:
		return "A downstream that never answers holds every request: give each call to it a timeout (a socket timeout, a context deadline), so a hung peer fails requests instead of holding them."
	case g.Wait == runfmt.TimeSync:
		return "A lock or channel nobody releases: find what holds it (a lock taken twice on one path, an unlock skipped on an early return, a channel nobody sends on)."
	case g.Wait == runfmt.TimeSleep:
		return "They sleep: a retry or back-off loop without end?"
	case g.Wait == runfmt.TimeRunning:
		return "They run: a loop without end on the request path?"
	}
	return ""
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// stuck writes a verdict's block on a snapshot of a service whose
// requests stopped finishing: why and when it was taken, how each process
// was read, the groups (those in the service's code first) with the line
// each waits at, and what is missing.
func (p *printer) stuck(st *runfmt.Stuck) {
	if st == nil {
		return
	}
	unit := stuckUnit(st)
	p.f("\nStuck: %s; every thread's stack at %s into the window (%d %s, read in %s):\n",
		st.Reason, units.FormatMs(1000*st.AtS), st.Threads, countWord(unit, st.Threads), units.FormatMs(1000*st.Seconds))
	for _, pr := range st.Processes {
		unit := runfmt.UnitThread
		if pr.Source == runfmt.StackSourcePprof {
			unit = runfmt.UnitGoroutine
		}
		p.f("  process %d (%s): %s, %d %s, %s, %s", pr.PID, orUnknown(string(pr.Runtime)), pr.Source, pr.Threads, countWord(unit, pr.Threads),
			units.FormatBytes(float64(pr.Bytes)), units.FormatMs(1000*pr.Seconds))
		if pr.Error != "" {
			p.f(" — %s", pr.Error)
		}
		p.f("\n")
	}
	shown, rest := 0, 0
	for _, g := range st.Groups {
		if shown == stuckRows || shown > 0 && (g.Idle || !g.Located()) {
			rest += g.Count
			continue
		}
		shown++
		p.f("  %s\n", StuckGroupText(g))
		if g.Text != "" {
			p.f("        %s\n", strings.TrimSpace(g.Text))
		}
	}
	if n := len(st.Groups) - shown; n > 0 {
		p.f("  ... %d more %s (%d %s) in run.json\n", n, countWord("group", n), rest, countWord(unit, rest))
	}
	for _, n := range st.Notes {
		p.f("  note: %s\n", n)
	}
}

// stuckUnit is what a snapshot counts: goroutines, threads, or both
// ("thread and goroutine" takes its plural as one word would).
func stuckUnit(st *runfmt.Stuck) string {
	unit := ""
	for _, g := range st.Groups {
		switch {
		case unit == "":
			unit = g.Unit
		case unit != g.Unit:
			return "thread and goroutine"
		}
	}
	if unit == "" {
		return runfmt.UnitThread
	}
	return unit
}

func orUnknown(s string) string {
	if s == "" {
		return "runtime unknown"
	}
	return s
}
