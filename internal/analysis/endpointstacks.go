package analysis

// endpointCosts is a CPU profile's cost split by request: the cost under
// each handler, the cost of requests outside any handler, and the rest.
type endpointCosts struct {
	handlerOf []int32         // per stack: the handler it is charged to (the largest part), or -1
	cost      map[int32]int64 // per handler function
	explained int64           // under handlers
	request   int64           // in requests, under no handler
}

// splitByRequest charges each stack of c to the handler h finds in it, or
// to the requests' own handling, or to nothing. A stack the profiler read
// only in part (py-spy loses a deep stack's outer frames now and then)
// has no handler frame; when its outermost function is no complete
// request stack's root but runs under handlers, its cost goes to those
// handlers in proportion to their cost through that function: the
// handlers whose complete stacks show it are the ones it ran for.
func splitByRequest(c *Costs, h requestFinder) *endpointCosts {
	s := c.set
	e := &endpointCosts{handlerOf: make([]int32, s.NumStacks()), cost: map[int32]int64{}}
	requestRoot := make([]bool, len(s.Funcs))
	var partial []int // stacks with no request frame
	for si := range e.handlerOf {
		e.handlerOf[si] = -1
		st := s.Stack(si)
		val := s.Value(si, c.vi)
		if val == 0 || len(st) == 0 || c.IsMeasuring(si) {
			continue // perflab's profile requests: under no request of the load
		}
		switch i := h.handler(st); {
		case i >= 0:
			e.handlerOf[si] = st[i]
			e.cost[st[i]] += val
			e.explained += val
		case h.inRequest(st):
			e.request += val
		default:
			partial = append(partial, si)
			continue
		}
		requestRoot[st[len(st)-1]] = true
	}
	e.chargePartial(c, partial, requestRoot)
	return e
}

// chargePartial charges the partial stacks (see splitByRequest).
func (e *endpointCosts) chargePartial(c *Costs, partial []int, requestRoot []bool) {
	s := c.set
	through := map[int32]map[int32]int64{} // outermost function -> handler -> cost
	for _, si := range partial {
		st := s.Stack(si)
		if root := st[len(st)-1]; !requestRoot[root] {
			through[root] = map[int32]int64{}
		}
	}
	if len(through) == 0 {
		return
	}
	seen := map[int32]bool{}
	for si, hf := range e.handlerOf {
		if hf < 0 {
			continue
		}
		clear(seen)
		for _, f := range s.Stack(si) {
			if m, ok := through[f]; ok && !seen[f] {
				seen[f] = true
				m[hf] += s.Value(si, c.vi)
			}
		}
	}
	for _, si := range partial {
		st := s.Stack(si)
		m := through[st[len(st)-1]]
		if len(m) == 0 {
			continue
		}
		e.charge(si, s.Value(si, c.vi), m)
	}
}

// charge splits val among the handlers of m in proportion to their cost
// there; the rounding's remainder goes to the largest.
func (e *endpointCosts) charge(si int, val int64, m map[int32]int64) {
	var sum int64
	for _, v := range m {
		sum += v
	}
	hs := ByCost(m)
	left := val
	for _, hf := range hs[1:] {
		part := int64(float64(val) * float64(m[hf]) / float64(sum))
		e.cost[hf] += part
		left -= part
	}
	e.cost[hs[0]] += left
	e.handlerOf[si] = hs[0]
	e.explained += val
}
