package ktrace

import (
	"io"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// The kernel's run-time statistics (what gives Totals.ProgramCPU) add a
// clock read on each side of every program run, about 95 ns counted for
// an empty program here: as much as the programs' own work on a small
// request's 7–8 runs. A session holds them on for statsOn of every
// statsPeriod, from its start, and Totals scale what was counted to the
// whole window (ProgramEstimate).
const (
	statsOn     = 50 * time.Millisecond
	statsPeriod = 500 * time.Millisecond
)

// statsSampler switches the kernel's run-time statistics on and off and
// keeps how long they counted. A phase with them off counts too when the
// programs' runs grew in it: another holder (kernel.bpf_stats_enabled, or
// another tool) kept them on.
type statsSampler struct {
	runsNow func() uint64 // the programs' runs as the kernel counted them
	enable  func() (io.Closer, error)
	stop    chan struct{}
	done    chan struct{}

	mu      sync.Mutex
	hold    io.Closer // non-nil while this sampler holds them on
	start   time.Time // the session's
	since   time.Time // the phase's start
	runs    uint64    // the programs' runs at the phase's start, when off
	counted time.Duration
	held    time.Duration // of counted, with this sampler holding them
}

// enableStats turns the kernel's run-time statistics on until the
// returned Closer is closed.
func enableStats() (io.Closer, error) {
	return ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
}

// startStats turns the statistics on and starts the sampler; an error
// says the kernel refused them.
func startStats(runsNow func() uint64, enable func() (io.Closer, error)) (*statsSampler, error) {
	hold, err := enable()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	s := &statsSampler{runsNow: runsNow, enable: enable, stop: make(chan struct{}), done: make(chan struct{}),
		hold: hold, start: now, since: now}
	go s.loop()
	return s, nil
}

// loop switches the statistics at each phase's end until stopped.
func (s *statsSampler) loop() {
	defer close(s.done)
	t := time.NewTimer(statsOn)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		next := s.switchPhase(time.Now())
		s.mu.Unlock()
		t.Reset(next)
	}
}

// switchPhase ends the phase at now and starts the other, returning its
// length. Off, the runs are read after the statistics are released and
// before they are taken again, so that runs seen growing were counted by
// another holder.
func (s *statsSampler) switchPhase(now time.Time) time.Duration {
	if s.hold != nil {
		_ = s.hold.Close()
		s.hold = nil
		s.counted += now.Sub(s.since)
		s.held += now.Sub(s.since)
		s.since, s.runs = now, s.runsNow()
		return statsPeriod - statsOn
	}
	if s.runsNow() > s.runs {
		s.counted += now.Sub(s.since)
	}
	s.since = now
	if hold, err := s.enable(); err == nil {
		s.hold = hold
	}
	return statsOn
}

// times returns, at now, how long the statistics counted since the start,
// and the time since the start.
func (s *statsSampler) times(now time.Time) (counted, elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counted = s.counted
	if s.hold != nil || s.runsNow() > s.runs {
		counted += now.Sub(s.since)
	}
	return counted, now.Sub(s.start)
}

// close stops the sampler and releases the statistics.
func (s *statsSampler) close() error {
	close(s.stop)
	<-s.done
	return s.closeHold()
}

// closeHold releases the statistics if held.
func (s *statsSampler) closeHold() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		return nil
	}
	err := s.hold.Close()
	s.hold = nil
	return err
}

// programRuns is the programs' runs as the kernel counted them so far.
func programRuns(progs []*ebpf.Program) func() uint64 {
	return func() uint64 {
		var n uint64
		for _, p := range progs {
			if st, err := p.Stats(); err == nil {
				n += st.RunCount
			}
		}
		return n
	}
}
