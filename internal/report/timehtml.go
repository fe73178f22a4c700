package report

import (
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// htmlTime is the report's "Time per request" section: a stacked bar of the
// split and its table.
type htmlTime struct {
	Heading     string
	Rows        []htmlTimeRow
	Total, Idle string
	Scheduler   string
	// Figure is the split as a chart.
	Figure *figure
}

type htmlTimeRow struct {
	Kind, Color, Ms, Pct, Note string
}

func timeView(r *runfmt.Run) *htmlTime {
	t := r.Time
	if t == nil || len(t.Kinds) == 0 || t.TotalMs <= 0 {
		return nil
	}
	v := &htmlTime{Total: units.FormatMs(t.TotalMs)}
	v.Heading = timeHeading(r)
	for _, k := range t.Kinds {
		if k.Kind == runfmt.TimeOther && k.MsPerRequest == 0 {
			continue // only samplers have it
		}
		pct := 100 * k.MsPerRequest / t.TotalMs
		ms := units.FormatMs(k.MsPerRequest)
		v.Rows = append(v.Rows, htmlTimeRow{Kind: string(k.Kind), Color: kindColor(k.Kind), Ms: ms, Pct: units.FormatPct(pct), Note: timeKindNote(k)})
	}
	v.Figure = timeChart(r)
	if t.IdleMs > 0 {
		v.Idle = units.FormatMs(t.IdleMs)
	}
	if s := t.Scheduler; s != nil {
		v.Scheduler = schedulerText(s)
	}
	return v
}
