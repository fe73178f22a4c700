package demo

import "image/color"

// set paints one pixel.
func (s *gridStore) set(x, y int, c color.RGBA) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[y*s.w+x].C = c
	s.version++
}
