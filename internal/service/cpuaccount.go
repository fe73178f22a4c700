package service

// cpuAccount turns per-process CPU times from /proc into one cumulative
// counter for a process tree that changes between samples.
//
// Each process counts utime+stime plus cutime+cstime, the CPU of children
// it waited for. A child that exits and is reaped by a parent in the tree
// moves its CPU into the parent's cutime, which is not new CPU: the child's
// last seen total is subtracted from the parent's growth. A child born and
// reaped between two samples is seen only through its parent's cutime and
// counted once. A process reaped outside the tree loses at most its last
// interval.
type cpuAccount struct {
	last, cur map[int]acctEntry
	reaped    map[int]int64
	cum       int64
	started   bool
}

type acctEntry struct {
	start        uint64
	ppid         int
	total, child int64
}

func (a *cpuAccount) begin() {
	if a.cur == nil {
		a.cur, a.last = map[int]acctEntry{}, map[int]acctEntry{}
	}
	clear(a.cur)
}

func (a *cpuAccount) add(pid int, s procStat) {
	a.cur[pid] = acctEntry{start: s.StartTime, ppid: s.PPID, total: s.total(), child: s.CUTime + s.CSTime}
}

// end closes the sample and returns the cumulative ticks.
func (a *cpuAccount) end() int64 {
	if !a.started {
		for _, e := range a.cur {
			a.cum += e.total
		}
		a.started = true
		a.last, a.cur = a.cur, a.last
		return a.cum
	}
	// reaped holds, per parent, the growth of its children's CPU not yet
	// explained by children that vanished.
	var growth int64
	if a.reaped == nil {
		a.reaped = map[int]int64{}
	}
	reaped := a.reaped
	clear(reaped)
	for pid, e := range a.cur {
		old, ok := a.last[pid]
		if !ok || old.start != e.start {
			growth += e.total
			continue
		}
		growth += max(e.total-old.total, 0)
		if d := e.child - old.child; d > 0 {
			reaped[pid] = d
		}
	}
	for pid, old := range a.last {
		if e, ok := a.cur[pid]; ok && e.start == old.start {
			continue
		}
		if budget := reaped[old.ppid]; budget > 0 {
			d := min(old.total, budget)
			growth -= d
			reaped[old.ppid] = budget - d
		}
	}
	a.cum += max(growth, 0)
	a.last, a.cur = a.cur, a.last
	return a.cum
}
