package walltime

import (
	"io"
	"time"

	"perflab/internal/runfmt"
)

// PerRequest is the analysis's time of kind k divided by requests.
func (a *Analysis) PerRequest(k runfmt.TimeKind, requests int64) time.Duration {
	if requests <= 0 {
		return 0
	}
	return a.Time[k] / time.Duration(requests)
}

// Total is the request goroutines' time over every kind.
func (a *Analysis) Total() time.Duration {
	var t time.Duration
	for _, d := range a.Time {
		t += d
	}
	return t
}

// Read parses a Go execution trace from r and analyses it with the default
// options (see ReadWith).
func Read(r io.Reader) (*Analysis, error) { return ReadWith(r, Options{}) }
