package load

import "math"

// Total is the number of arrivals the schedule asks for.
func (s *Schedule) Total() int64 { return int64(math.Floor(s.total + 1e-9)) }
