package ktrace

import (
	"io"
	"os"
	"testing"
	"time"
)

// closer is an io.Closer calling its function.
type closer func() error

func (c closer) Close() error { return c() }

// TestStatsSamplerCountsItsPhases: the statistics count while the sampler
// holds them on, and while off only when the runs grew (another holder
// kept them on); what was counted is scaled to the whole window.
func TestStatsSamplerCountsItsPhases(t *testing.T) {
	held, runs := 0, uint64(0)
	enable := func() (io.Closer, error) {
		held++
		return closer(func() error { held--; return nil }), nil
	}
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	s := &statsSampler{runsNow: func() uint64 { return runs }, enable: enable, start: t0, since: t0}
	s.hold, _ = enable()

	runs += 10 // counted, on
	if next := s.switchPhase(at(statsOn)); next != statsPeriod-statsOn || held != 0 {
		t.Fatalf("after the first phase: next %v, held %d; want %v off, released", next, held, statsPeriod-statsOn)
	}
	if next := s.switchPhase(at(statsPeriod)); next != statsOn || held != 1 {
		t.Fatalf("after an off phase: next %v, held %d; want %v on, held", next, held, statsOn)
	}
	if c, e := s.times(at(statsPeriod + 20*time.Millisecond)); c != statsOn+20*time.Millisecond || e != statsPeriod+20*time.Millisecond {
		t.Errorf("times in the second phase on: counted %v of %v; want %v of %v", c, e, statsOn+20*time.Millisecond, statsPeriod+20*time.Millisecond)
	}
	s.switchPhase(at(statsPeriod + statsOn))
	runs += 5 // counted while off: another holder
	s.switchPhase(at(2 * statsPeriod))
	if want := 2*statsOn + (statsPeriod - statsOn); s.counted != want {
		t.Errorf("counted %v; want %v (an off phase whose runs grew counts)", s.counted, want)
	}
	if s.held != 2*statsOn {
		t.Errorf("held %v; want the two phases on, %v", s.held, 2*statsOn)
	}
	if err := s.closeHold(); err != nil || held != 0 {
		t.Errorf("close: %v, held %d", err, held)
	}

	tot := Totals{ProgramCPU: ms(2), Programs: map[string]Stat{"on_recv": {100, ms(2)}}, ProgramCounted: ms(100), ProgramElapsed: ms(1000)}
	cpu, progs, share := tot.ProgramEstimate()
	if cpu != ms(20) || progs["on_recv"] != (Stat{1000, ms(20)}) || share != 0.1 {
		t.Errorf("estimate of 2 ms counted 10%% of the time: %v %v %v; want 20 ms, 1000 runs, 0.1", cpu, progs, share)
	}
	if cpu, progs, share := (Totals{ProgramCPU: ms(2)}).ProgramEstimate(); cpu != 0 || progs != nil || share != 0 {
		t.Errorf("estimate with nothing counted: %v %v %v; want none", cpu, progs, share)
	}
}

// TestSessionCountsPartOfTheTime: a session holds the kernel's run-time
// statistics for about statsOn of each statsPeriod, and counts more when
// another holder keeps them on (kernel.bpf_stats_enabled, another
// session: the test suite runs others beside this one); the programs'
// estimate scales what was counted to the window.
func TestSessionCountsPartOfTheTime(t *testing.T) {
	s := startSession(t, Config{PIDs: []int{os.Getpid()}, SchedulerOnly: true})
	// The measurement window: 1.2 s of switches of a measured thread
	// (each sleep takes it off a CPU and back), so that on_switch runs.
	for deadline := time.Now().Add(1200 * time.Millisecond); time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	tot := read(t, s)
	s.stats.mu.Lock()
	held := s.stats.held
	s.stats.mu.Unlock()
	want := float64(statsOn) / float64(statsPeriod)
	// A late timer on a busy machine lengthens the phases, on and off alike.
	if share := float64(held) / float64(tot.ProgramElapsed); share < want*0.3 || share > 0.5 {
		t.Errorf("held the statistics %v of %v (%.2f); want about %.2f", held, tot.ProgramElapsed, share, want)
	}
	if tot.ProgramCounted < held || tot.ProgramCounted > tot.ProgramElapsed {
		t.Errorf("counted %v of %v; want at least the %v held, at most all", tot.ProgramCounted, tot.ProgramElapsed, held)
	}
	cpu, progs, _ := tot.ProgramEstimate()
	if st := tot.Programs["on_switch"]; st.Count == 0 || progs["on_switch"].Count < st.Count || cpu < tot.ProgramCPU {
		t.Errorf("on_switch counted %+v, estimated %+v (programs %v of %v counted); want runs, scaled up", st, progs["on_switch"], cpu, tot.ProgramCPU)
	}
}
