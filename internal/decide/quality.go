package decide

import (
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// quality judges the machine over [from, to]; nil when it was not sampled.
func (d *decider) quality(from, to time.Time, t *runfmt.TargetSummary, l *runfmt.LoadResult) *runfmt.Quality {
	return Quality(d.in.Machine, from, to, t, l)
}

// Quality judges the machine over [from, to] from m's samples, beside
// the service's summary t and its load l (nil for none); nil when the
// machine was not sampled (m nil).
func Quality(m *service.MachineSampler, from, to time.Time, t *runfmt.TargetSummary, l *runfmt.LoadResult) *runfmt.Quality {
	if m == nil {
		return nil
	}
	w, ok := m.Window(from, to)
	if !ok {
		return nil
	}
	in := service.QualityInput{Machine: w, Service: t}
	if l != nil {
		in.Requests, in.LatencyMeanMs = l.Requests, l.Latency.Mean
	}
	q := service.Assess(in)
	return &q
}
