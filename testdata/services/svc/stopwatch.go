package svc

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Stopwatch times a planted wait from inside the service, so tests can
// compare what perflab reports with what the service measured itself.
// Its zero value is ready; it is safe for concurrent use.
type Stopwatch struct {
	n, ns atomic.Int64
}

// Since adds the time since start (taken with time.Now before the wait,
// in the function that waits, so profiles charge the wait to it).
func (s *Stopwatch) Since(start time.Time) {
	s.ns.Add(int64(time.Since(start)))
	s.n.Add(1)
}

// Report writes "NAME: N waits, mean X ms" (the line tests read from the
// service's log).
func (s *Stopwatch) Report(w io.Writer, name string) {
	n := s.n.Load()
	mean := 0.0
	if n > 0 {
		mean = float64(s.ns.Load()) / float64(n) / 1e6
	}
	fmt.Fprintf(w, "%s: %d waits, mean %.3f ms\n", name, n, mean)
}
