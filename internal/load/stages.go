package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Stage ramps the arrival rate linearly to Target requests/s over Duration,
// starting from the previous stage's target (or from the start rate).
type Stage struct {
	Duration time.Duration
	Target   float64
}

// maxRate bounds rates to something a process can schedule.
const maxRate = 10_000_000

// ParseRate parses a --rate value: "500", "500/s", "30000/1m", "2/100ms".
func ParseRate(s string) (float64, error) {
	num, per, hasPer := strings.Cut(strings.TrimSpace(s), "/")
	r, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) {
		return 0, fmt.Errorf("rate %q: want requests per second like 500, or 30000/1m", s)
	}
	if hasPer {
		d, err := parsePer(per)
		if err != nil {
			return 0, fmt.Errorf("rate %q: %w", s, err)
		}
		r = r / d.Seconds()
	}
	if r <= 0 || r > maxRate {
		return 0, fmt.Errorf("rate %q: must be > 0 and at most %d per second", s, maxRate)
	}
	return r, nil
}

func parsePer(s string) (time.Duration, error) {
	switch s {
	case "s", "1s":
		return time.Second, nil
	case "m", "1m":
		return time.Minute, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("period %q: want s, m or a duration like 100ms", s)
	}
	return d, nil
}

// ParseStages parses "30s:10,3m:100,30s:0": each stage is DURATION:RATE.
func ParseStages(s string) ([]Stage, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("stages %q: empty (want e.g. \"30s:10,3m:100,30s:0\")", s)
	}
	var out []Stage
	for i, part := range strings.Split(s, ",") {
		ds, rs, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("stages %q: stage %d %q: want DURATION:RATE like 30s:100", s, i+1, part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(ds))
		if err != nil || d <= 0 || d > 24*time.Hour {
			return nil, fmt.Errorf("stages %q: stage %d: duration %q must be like 30s or 2m (>0, <=24h)", s, i+1, ds)
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(rs), 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > maxRate {
			return nil, fmt.Errorf("stages %q: stage %d: rate %q must be a number from 0 to %d", s, i+1, rs, maxRate)
		}
		out = append(out, Stage{Duration: d, Target: r})
	}
	return out, nil
}

// Schedule gives the intended start time of each arrival of an open-model load:
// a constant rate, or linear ramps between stages. Arrival k (from 0) is due at
// the time t where the integral of the rate from 0 to t equals k.
type Schedule struct {
	segs  []segment
	total float64 // arrivals in the whole schedule
	end   time.Duration
}

type segment struct {
	start, dur time.Duration
	r0, r1     float64
	before     float64 // arrivals scheduled before this segment
}

// NewSchedule builds a schedule starting at startRate and following stages. With
// no stages it is a constant startRate for duration.
func NewSchedule(startRate float64, stages []Stage, duration time.Duration) *Schedule {
	if len(stages) == 0 {
		stages = []Stage{{Duration: duration, Target: startRate}}
	}
	s := &Schedule{}
	r0 := startRate
	var at time.Duration
	for _, st := range stages {
		seg := segment{start: at, dur: st.Duration, r0: r0, r1: st.Target, before: s.total}
		s.total += (r0 + st.Target) / 2 * st.Duration.Seconds()
		s.segs = append(s.segs, seg)
		at += st.Duration
		r0 = st.Target
	}
	s.end = at
	return s
}

// Duration is the schedule's length.
func (s *Schedule) Duration() time.Duration { return s.end }

// MeanRate is the schedule's mean arrival rate.
func (s *Schedule) MeanRate() float64 {
	if s.end <= 0 {
		return 0
	}
	return s.total / s.end.Seconds()
}

// Due is the count of arrivals the schedule puts in [from, to): the
// integral of its rate over that span (fractional for shards and ramps).
func (s *Schedule) Due(from, to time.Duration) float64 { return s.before(to) - s.before(from) }

// before is the count of arrivals due before offset t.
func (s *Schedule) before(t time.Duration) float64 {
	if t >= s.end {
		return s.total
	}
	for _, seg := range s.segs {
		if t >= seg.start+seg.dur || seg.dur <= 0 {
			continue
		}
		x := max(t-seg.start, 0).Seconds()
		slope := (seg.r1 - seg.r0) / seg.dur.Seconds()
		return seg.before + seg.r0*x + slope*x*x/2
	}
	return s.total
}

// At returns the intended offset of arrival k (0-based, fractional offsets
// allowed for shards) and false when the schedule has no such arrival.
func (s *Schedule) At(k float64) (time.Duration, bool) {
	if k < 0 || k >= s.total-1e-9 {
		return 0, false
	}
	for _, seg := range s.segs {
		n := (seg.r0 + seg.r1) / 2 * seg.dur.Seconds()
		if k >= seg.before+n {
			continue
		}
		x := k - seg.before // arrivals into this segment
		T := seg.dur.Seconds()
		a := (seg.r1 - seg.r0) / T // rate slope
		// Solve r0*t + a*t^2/2 = x for the root in [0, T], in the form
		// t = 2x / (r0 + sqrt(r0^2 + 2ax)) that stays exact when a is tiny.
		var t float64
		if x > 0 {
			disc := seg.r0*seg.r0 + 2*a*x
			if disc < 0 {
				disc = 0
			}
			t = 2 * x / (seg.r0 + math.Sqrt(disc))
		}
		if t > T {
			t = T
		}
		if t < 0 {
			t = 0
		}
		return seg.start + time.Duration(t*float64(time.Second)), true
	}
	return 0, false
}
