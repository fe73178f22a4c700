package load

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxStartAhead is how far ahead --start-at may be.
const MaxStartAhead = 24 * time.Hour

// maxUnix is the first Unix time of year 10000, past RFC 3339's four digits.
const maxUnix = 253402300800

// ParseStartAt parses --start-at: an RFC 3339 time
// ("2026-05-04T10:00:00Z", with a fraction and any offset) or a Unix time
// in seconds ("1777888800", "1777888800.5").
func ParseStartAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty: want an RFC 3339 time like 2026-05-04T10:00:00Z or a Unix time in seconds")
	}
	if strings.Trim(s, "0123456789.") == "" {
		secs, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(secs, 0) || secs >= maxUnix {
			return time.Time{}, fmt.Errorf("%q: not a Unix time in seconds", s)
		}
		whole, frac := math.Modf(secs)
		return time.Unix(int64(whole), int64(math.Round(frac*1e9))).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time like 2026-05-04T10:00:00Z (or +02:00 for the offset) or a Unix time in seconds", s)
	}
	return t, nil
}

// CheckStartAt refuses a start that is not ahead of now or lies more than
// MaxStartAhead away: a shard that would start late or a mistyped day.
func CheckStartAt(t, now time.Time) error {
	switch d := t.Sub(now); {
	case d <= 0:
		ago := (-d).Round(time.Millisecond)
		if ago > time.Minute {
			ago = ago.Round(time.Second)
		}
		return fmt.Errorf("%s is %s in the past: give every shard a time ahead of when the last one starts", t.UTC().Format(time.RFC3339Nano), ago)
	case d > MaxStartAhead:
		return fmt.Errorf("%s is %s ahead: at most %s", t.UTC().Format(time.RFC3339Nano), d.Round(time.Second), MaxStartAhead)
	}
	return nil
}

// waitStart waits until the config's StartAt and returns the instant the
// load counts from: StartAt itself once waited for, so the shards'
// schedules and per-second series share it whatever the timer's slack;
// now when no start was set or it had passed already (a run's measured
// load after the warm-up that waited). It reads the wall clock at least
// once a minute: the time was given by the wall clock, which NTP may step
// while a monotonic timer waits. ok is false when ctx ended first.
func (a *Attacker) waitStart(ctx context.Context) (t0 time.Time, ok bool) {
	at := a.cfg.StartAt
	now := time.Now()
	if at.IsZero() || !at.After(now) {
		return now, true
	}
	for at.After(now) {
		t := time.NewTimer(min(at.Sub(now), time.Minute))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return time.Now(), false
		}
		now = time.Now()
	}
	return now.Add(at.Sub(now)), true // at, on the monotonic clock
}
