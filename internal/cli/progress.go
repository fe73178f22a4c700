package cli

import (
	"fmt"
	"sync"
	"time"

	"perflab/internal/load"
	"perflab/internal/units"
)

// progress prints a running load's state on stderr: redrawn in place on a
// terminal every 250ms, a plain line every 5s otherwise.
type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func startProgress(env Env, a *load.Attacker) *progress {
	p := &progress{done: make(chan struct{})}
	every := 5 * time.Second
	if env.StderrTTY {
		every = 250 * time.Millisecond
	}
	p.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		var lastReq int64
		last := time.Now()
		for {
			select {
			case <-p.done:
				if env.StderrTTY {
					fmt.Fprint(env.Stderr, "\r\033[K")
				}
				return
			case now := <-t.C:
				s := a.Progress()
				rps := float64(s.Requests-lastReq) / now.Sub(last).Seconds()
				lastReq, last = s.Requests, now
				line := formatProgress(s, rps)
				if env.StderrTTY {
					fmt.Fprintf(env.Stderr, "\r\033[K%s", line)
				} else {
					fmt.Fprintln(env.Stderr, line)
				}
			}
		}
	})
	return p
}

func formatProgress(s load.Progress, rps float64) string {
	if s.Waiting > 0 {
		return "waiting for --start-at: the load starts in " + units.FormatDuration(s.Waiting.Round(100*time.Millisecond))
	}
	elapsed := units.FormatDuration(s.Elapsed.Truncate(100 * time.Millisecond))
	total := ""
	switch {
	case s.Planned > 0:
		total = " / " + units.FormatDuration(s.Planned)
	case s.Count > 0:
		total = fmt.Sprintf(" (%d/%d requests)", s.Requests, s.Count)
	}
	p99 := "p99 -"
	if s.P99ms > 0 {
		p99 = "p99 " + units.FormatMs(s.P99ms) + " (last second)"
	}
	line := fmt.Sprintf("%s%s  %d requests  %.0f req/s  %d errors  %s", elapsed, total, s.Requests, rps, s.Errors, p99)
	if s.InFlight > 0 {
		line += fmt.Sprintf("  %d in flight", s.InFlight)
	}
	return line
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
}
