package ktrace

import (
	"errors"
	"fmt"
	"maps"
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
	if _, off := s.unmeasured[ProgramCPU]; !off {
		if err := s.readCosts(&t); err != nil {
			return Totals{}, err
		}
	}
	return t, nil
}

func (s *Session) readProcs(t *Totals) error {
	var tgid uint32
	var procs []kProc
	it := s.maps["procs"].Iterate()
	for it.Next(&tgid, &procs) {
		t.addProc(tgid, procs)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("ktrace: reading scheduler totals: %w", err)
	}
	var k kOffKey
	var waits []kWaitStat
	it = s.maps["offcpu"].Iterate()
	for it.Next(&k, &waits) {
		t.addWait(k, waits)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("ktrace: reading off-CPU totals: %w", err)
	}
	return nil
}

// readFlows reads each flow key's slot, then its totals there.
func (s *Session) readFlows(t *Totals) error {
	var k kFlowKey
	var slot uint32
	slots := map[kFlowKey]uint32{}
	it := s.maps["flowslots"].Iterate()
	for it.Next(&k, &slot) {
		slots[k] = slot
	}
	if err := it.Err(); err != nil {
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

// readCosts reads each program's run time and runs as the kernel counts
// them (from its load: the session's start).
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
