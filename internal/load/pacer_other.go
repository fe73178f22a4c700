//go:build !linux

package load

import "time"

// pacer falls back to time.Sleep where timerfd does not exist.
type pacer struct{}

func newPacer() (*pacer, error) { return &pacer{}, nil }

func (p *pacer) sleep(d time.Duration) { time.Sleep(min(d, maxNap)) }

func (p *pacer) close() {}
