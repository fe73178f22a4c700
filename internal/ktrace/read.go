package ktrace

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/cilium/ebpf"
)

// Read returns the session's totals since Start. Each map is read in one
// pass, bounded by its size; intervals still open are counted by a later
// Read.
func (s *Session) Read() (Totals, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return Totals{}, errors.New("ktrace: session closed")
	}
	t := newTotals()
	t.Unmeasured = maps.Clone(s.unmeasured)
	if err := s.readProcs(&t); err != nil {
		return Totals{}, err
	}
	if err := s.readFlows(&t); err != nil {
		return Totals{}, err
	}
	if err := s.readDrops(&t); err != nil {
		return Totals{}, err
	}
	if s.stats != nil {
		t.ProgramCounted, t.ProgramElapsed = s.stats.times(time.Now())
		if err := s.readCosts(&t); err != nil {
			return Totals{}, err
		}
	}
	return t, nil
}

// readProcs reads each process's and each off-CPU key's slot, then its
// totals there.
func (s *Session) readProcs(t *Totals) error {
	procs, err := readSlots[uint32](s.maps["procslots"])
	if err != nil {
		return fmt.Errorf("ktrace: reading processes: %w", err)
	}
	for tgid, slot := range procs {
		var v []kProc
		if err := s.maps["procs"].Lookup(slot, &v); err != nil {
			return fmt.Errorf("ktrace: reading scheduler totals: %w", err)
		}
		t.addProc(tgid, v)
	}
	waits, err := readSlots[kOffKey](s.maps["offslots"])
	if err != nil {
		return fmt.Errorf("ktrace: reading off-CPU keys: %w", err)
	}
	for k, slot := range waits {
		var v []kWaitStat
		if err := s.maps["offcpu"].Lookup(slot, &v); err != nil {
			return fmt.Errorf("ktrace: reading off-CPU totals: %w", err)
		}
		t.addWait(k, v)
	}
	return nil
}

// readSlots reads a map of keys to their totals' indexes.
func readSlots[K comparable](m *ebpf.Map) (map[K]uint32, error) {
	var k K
	var slot uint32
	slots := map[K]uint32{}
	it := m.Iterate()
	for it.Next(&k, &slot) {
		slots[k] = slot
	}
	return slots, it.Err()
}

// readFlows reads each flow key's slot, then its totals there.
func (s *Session) readFlows(t *Totals) error {
	slots, err := readSlots[kFlowKey](s.maps["flowslots"])
	if err != nil {
		return fmt.Errorf("ktrace: reading connection keys: %w", err)
	}
	for k, slot := range slots {
		var flows []kFlow
		if err := s.maps["flows"].Lookup(slot, &flows); err != nil {
			return fmt.Errorf("ktrace: reading connection totals: %w", err)
		}
		t.addFlow(k, flows)
	}
	return nil
}

func (s *Session) readDrops(t *Totals) error {
	var byIndex [nDrops]uint64
	for i := range byIndex {
		var perCPU []uint64
		if err := s.maps["drops"].Lookup(uint32(i), &perCPU); err != nil {
			return fmt.Errorf("ktrace: reading drops: %w", err)
		}
		for _, n := range perCPU {
			byIndex[i] += n
		}
	}
	t.setDrops(byIndex)
	return nil
}

// readCosts reads each program's run time and runs as the kernel counted
// them (from its load: the session's start; while the statistics were on).
func (s *Session) readCosts(t *Totals) error {
	for name, p := range s.progs {
		st, err := p.Stats()
		if err != nil {
			return fmt.Errorf("ktrace: reading program %s's statistics: %w", name, err)
		}
		t.Programs[name] = Stat{Count: st.RunCount, Time: st.Runtime}
		t.ProgramCPU += st.Runtime
		t.Dropped.Recursion += st.RecursionMisses
	}
	return nil
}
