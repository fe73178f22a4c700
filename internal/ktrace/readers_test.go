package ktrace

import (
	"errors"
	"fmt"
)

// The readers below serve the tests: perflab's commands read the totals
// only, not the stacks recorded with Config.Stacks nor a wait's mean.

// Stack returns the user stack recorded under id (Wait.Stack), innermost
// frame first, as instruction addresses in the process's address space.
func (s *Session) Stack(id int32) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return nil, errors.New("ktrace: session closed")
	}
	var frames [127]uint64
	if err := s.maps["stacks"].Lookup(uint32(id), &frames); err != nil {
		return nil, fmt.Errorf("ktrace: stack %d: %w", id, err)
	}
	n := 0
	for n < len(frames) && frames[n] != 0 {
		n++
	}
	return frames[:n], nil
}
