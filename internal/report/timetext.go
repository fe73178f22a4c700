package report

import (
	"fmt"
	"strings"

	"perflab/internal/funcname"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// timeSource names where a time split came from, for headings.
func timeSource(src runfmt.TimeSource) string {
	switch src {
	case runfmt.TimeSourceGoTrace:
		return "Go execution trace"
	case runfmt.TimeSourcePySpy:
		return "py-spy, idle threads included"
	case runfmt.TimeSourcePerfSched:
		return "perf, scheduler events"
	}
	return string(src)
}

// timePerRequest writes the "Time per request" table: the split of a
// request's wall time by kind, with the user function that has the most of
// each kind and the precise waits.
func (p *printer) timePerRequest(r *runfmt.Run) {
	t := r.Time
	if t == nil || len(t.Kinds) == 0 {
		return
	}
	p.f("\nTime per request (%s):\n", timeHeading(r))
	for _, k := range t.Kinds {
		if k.Kind == runfmt.TimeOther && k.MsPerRequest == 0 {
			continue // only samplers have it
		}
		share := 0.0
		if t.TotalMs > 0 {
			share = 100 * k.MsPerRequest / t.TotalMs
		}
		p.f("%s\n", strings.TrimRight(fmt.Sprintf("  %-9s %10s %6.1f%%  %s", k.Kind, units.FormatMs(k.MsPerRequest), share, timeKindNote(k)), " "))
	}
	p.f("  %-9s %10s", "total", units.FormatMs(t.TotalMs))
	if t.IdleMs > 0 {
		p.f("          (connections idle between requests: %s per request, not counted)", units.FormatMs(t.IdleMs))
	}
	p.f("\n")
	if s := t.Scheduler; s != nil {
		p.f("  Scheduler: %s\n", schedulerText(s))
	}
}

// timeHeading says where a time split comes from, what it covers and the
// mean latency to hold it against.
func timeHeading(r *runfmt.Run) string {
	t := r.Time
	s := fmt.Sprintf("%s, %s of the window, %d requests", timeSource(t.Source), units.FormatSeconds(t.Seconds), t.Requests)
	if r.Load != nil && r.Load.Latency.Mean > 0 {
		s += "; mean latency " + units.FormatMs(r.Load.Latency.Mean)
	}
	return s
}

// schedulerText is what the Go execution trace saw of the scheduler.
func schedulerText(s *runfmt.GoScheduler) string {
	return fmt.Sprintf("%d Ps busy %s of the time; the world stopped %s for %d GC cycles (%s in all); goroutines up to %d, %d created",
		s.GOMAXPROCS, units.FormatPct(s.PBusyPct), units.FormatMs(s.GCStopMs), s.GCCycles, units.FormatMs(s.StopTheWorldMs), s.GoroutinesMax, s.GoroutinesCreated)
}

// timeKindNote is a kind's top site and its waits, for one table line.
func timeKindNote(k runfmt.TimeRow) string {
	var parts []string
	if k.Top != nil {
		s := funcname.Label(k.Top.Function, k.Top.File)
		if k.Top.Callee != "" {
			s += " in " + k.Top.Callee
		}
		parts = append(parts, s)
	}
	if len(k.Waits) > 0 {
		var ws []string
		for _, w := range sortedWaits(k.Waits) {
			if k.Waits[w] >= 0.0005 {
				ws = append(ws, fmt.Sprintf("%s %s", w, units.FormatMs(k.Waits[w])))
			}
		}
		if len(ws) > 0 {
			parts = append(parts, "("+strings.Join(ws, ", ")+")")
		}
	}
	return strings.Join(parts, " ")
}

// sortedWaits lists the waits by descending time.
func sortedWaits(m map[runfmt.Wait]float64) []runfmt.Wait {
	keys := make([]runfmt.Wait, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (m[keys[j]] > m[keys[j-1]] || m[keys[j]] == m[keys[j-1]] && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// goRuntime writes the Go runtime's settings as the service used them.
func (p *printer) goRuntime(g *runfmt.GoRuntime) {
	if g == nil {
		return
	}
	var parts []string
	if g.GOMAXPROCS > 0 {
		s := fmt.Sprintf("GOMAXPROCS %d (%s", g.GOMAXPROCS, g.GOMAXPROCSSource)
		if g.GOMAXPROCSEnv != "" {
			s += "; GOMAXPROCS=" + g.GOMAXPROCSEnv + " in its environment"
		}
		parts = append(parts, s+")")
	}
	gogc := "GOGC unset (100)"
	if g.GOGC != "" {
		gogc = "GOGC=" + g.GOGC
	}
	if g.GOGCEffective > 0 {
		gogc += fmt.Sprintf(", %.0f as its heap goals show", g.GOGCEffective)
	}
	parts = append(parts, gogc)
	if g.GOMEMLIMIT != "" {
		parts = append(parts, "GOMEMLIMIT="+g.GOMEMLIMIT)
	} else {
		parts = append(parts, "no GOMEMLIMIT")
	}
	p.f("  Go runtime:\t%s\n", strings.Join(parts, ", "))
}
