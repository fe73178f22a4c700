package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// errorsNotable is the error rate above which the headline states it.
const errorsNotable = 1.0 // percent

// Headline is what a reader must know before any figure of a run: whether
// the machine let it measure cleanly, a run that is partial or degraded and
// why, a notable error rate or refused connections, and the SLO's
// objectives. Each line is plain text; Class is "ok", "warn" or "bad".
type Headline struct {
	Lines []HeadlineLine
	SLO   []runfmt.SLOCheck
}

// HeadlineLine is one line of a Headline.
type HeadlineLine struct {
	Label, Text, Class string
}

// NewHeadline computes a run's headline.
func NewHeadline(r *runfmt.Run) Headline {
	var h Headline
	add := func(label, text, class string) {
		h.Lines = append(h.Lines, HeadlineLine{label, text, class})
	}
	if q := r.Quality; q != nil {
		class := "ok"
		if q.Noisy() {
			class = "warn"
		}
		add("Measurement", QualityLine(q), class)
	}
	switch r.Status {
	case runfmt.StatusPartial:
		add("Status", "partial — "+r.PartialReason, "bad")
	case runfmt.StatusStuck:
		add("Status", "stuck — "+r.PartialReason, "bad")
	case runfmt.StatusDegraded:
		add("Status", "degraded — "+DegradedText(r), "warn")
	}
	if r.Status == runfmt.StatusPartial && len(r.Degradations) > 0 {
		add("Profiles", DegradedText(r), "warn")
	}
	if l := r.Load; l != nil {
		if text := errorText(l); text != "" {
			add("Errors", text, "bad")
		}
		h.SLO = l.SLO
	}
	h.Lines = append(h.Lines, verdictLines(r)...)
	return h
}

// errorText states a notable error rate, or refused connections, with the
// kinds of errors: "12.5% of 10000 requests failed (9000 refused: ...)".
func errorText(l *runfmt.LoadResult) string {
	if l.Requests == 0 {
		return ""
	}
	pct := 100 * float64(l.Errors) / float64(l.Requests)
	refused := l.ErrorKinds["refused"]
	if pct <= errorsNotable && refused == 0 {
		return ""
	}
	kinds := make([]string, 0, len(l.ErrorKinds))
	for k := range l.ErrorKinds {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return l.ErrorKinds[kinds[i]] > l.ErrorKinds[kinds[j]] })
	var parts []string
	for _, k := range kinds {
		part := fmt.Sprintf("%d %s", l.ErrorKinds[k], k)
		if k == "refused" {
			part += ": the service was not accepting connections"
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%s of %d requests failed (%s)", units.FormatPct(pct), l.Requests, strings.Join(parts, ", "))
}

// WriteHeadline writes a run's headline as text, first thing before its
// load summary and verdict (which open with a blank line).
func WriteHeadline(w io.Writer, r *runfmt.Run) error {
	h := NewHeadline(r)
	p := &printer{w: w}
	for _, l := range h.Lines {
		p.f("%s: %s\n", l.Label, l.Text)
	}
	if len(h.SLO) > 0 && p.err == nil {
		p.err = WriteSLO(w, h.SLO)
	}
	return p.err
}

// WriteSLO prints each objective like k6's thresholds: a check mark or a
// cross, the objective, and the measured value.
func WriteSLO(w io.Writer, checks []runfmt.SLOCheck) error {
	p := &printer{w: w}
	missed := 0
	for _, c := range checks {
		if !c.Pass {
			missed++
		}
	}
	verdict := "met"
	if missed > 0 {
		verdict = fmt.Sprintf("%d of %d missed", missed, len(checks))
	}
	p.f("SLO: %s\n", verdict)
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Objective))
	}
	for _, c := range checks {
		mark := "✓"
		if !c.Pass {
			mark = "✗"
		}
		p.f("  %s %-*s  %s=%s\n", mark, width, c.Objective, c.Metric, FormatSLOValue(c))
	}
	return p.err
}

// FormatSLOValue formats an objective's measured value in its unit.
func FormatSLOValue(c runfmt.SLOCheck) string {
	if c.Unit == "%" {
		return units.FormatPct(c.Measured)
	}
	return units.FormatMs(c.Measured)
}
