package batch

import (
	"time"

	"perflab/internal/service"
)

// peakInterval is how often the program's peak RSS (VmHWM) is read: a
// high-water mark, so a reading holds every peak before it; only what a
// program reaches in its last interval before exiting is missed.
const peakInterval = 100 * time.Millisecond

// peakSampler follows the program's peak RSS until it exits.
type peakSampler struct {
	peak int64
	done chan struct{}
}

// startPeak reads the program's processes' peak RSS every peakInterval
// until the program exits.
func (b *batch) startPeak() {
	s := &peakSampler{done: make(chan struct{})}
	b.peak = s
	go func() {
		defer close(s.done)
		t := time.NewTicker(peakInterval)
		defer t.Stop()
		for {
			s.peak = max(s.peak, service.PeakRSS(b.proc.PIDs()))
			select {
			case <-b.proc.Exited():
				return
			case <-t.C:
			}
		}
	}()
}

// peakRSS is the program's peak RSS seen, once it has exited.
func (b *batch) peakRSS() int64 {
	if b.peak == nil {
		return 0
	}
	<-b.peak.done
	return b.peak.peak
}
