package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"perflab/internal/runfmt"
)

// ProfileOnly is the measure stage of a profile-only run: it captures
// the window's profiles with no load; it ends early if the service exits
// or ctx is cancelled.
func (s *Session) ProfileOnly(ctx context.Context, window time.Duration) error {
	p := s.prof
	p.Before(ctx)
	if p.Chosen() == "" {
		return errors.New("no profiler could be used (give --pprof URL, --pid PID or -- CMD)")
	}
	s.cfg.Log(fmt.Sprintf("profiling with %s for %s", p.Chosen(), window.Round(time.Millisecond)))
	done := p.During(ctx, window) // returns when the samplers sample
	from := time.Now()
	p.WindowStarts()
	var exited <-chan struct{}
	if s.proc != nil {
		exited = s.proc.Exited()
	}
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("%w: the profiles cover what completed before Ctrl-C", ErrInterrupted)
	case <-exited:
		err = s.errExited("profiling")
	}
	if err != nil {
		p.Abandon()
		<-done
	}
	p.SetWindow(from, time.Now())
	p.WindowEnds()
	fin, cancel := s.finishing(ctx)
	defer cancel()
	p.After(fin)
	if err == nil && p.Profile(runfmt.ProfileCPU) == nil {
		err = errors.New("no CPU profile was captured (see the warnings)")
		if why := s.lastDegradation(); why != "" {
			err = errors.New("no CPU profile was captured: " + why)
		}
	}
	return err
}
