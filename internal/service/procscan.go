package service

import (
	"bytes"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// procScan is one pass over every process of the host: the CPU used since
// the previous pass by perflab's helpers (profilers it started), by the
// service's process tree, and by the processes that are neither perflab
// nor the service, with those processes named. Ticks are USER_HZ clock
// ticks.
type procScan struct {
	T                                     time.Time
	helperTicks, serviceTicks, otherTicks int64
	others                                []procUse
}

// procUse is the CPU one process used between two scans.
type procUse struct {
	pid   int
	start uint64
	name  string
	ticks int64
}

// Process classes of a scan.
const (
	classOther int8 = iota + 1
	classSelf
	classHelper
	classService
)

// procScanner reads /proc/PID/stat of every process to tell who else used
// the CPUs. Reading them all is the costly part of watching the machine
// (a few µs per process, more on a VM), so MachineSampler spaces the scans
// by their measured cost. Buffers and maps are reused between scans.
type procScanner struct {
	r    fileReader
	walk procWalker
	pids []int

	cur, last map[int]scanEntry
	class     map[int]int8
	names     map[procKey]string
	// scanned says last holds a full scan; bootTicks is when it was taken.
	scanned   bool
	bootTicks uint64
}

type procKey struct {
	pid   int
	start uint64
}

type scanEntry struct {
	start        uint64
	ppid         int
	total, child int64
	name         []byte
}

// maxNames bounds the interned process names (a host that runs builds
// starts thousands of short processes).
const maxNames = 4096

// scan reads every process now. self is perflab's pid; service is the
// service's main pid (0: none): their trees are not "other" processes.
// The first scan only sets the baseline: it names no process.
func (s *procScanner) scan(now time.Time, self, service int) procScan {
	if s.cur == nil {
		s.cur, s.last, s.class, s.names = map[int]scanEntry{}, map[int]scanEntry{}, map[int]int8{}, map[procKey]string{}
	}
	clear(s.cur)
	boot := bootTicks()
	s.pids = s.walk.listDir("/proc", s.pids[:0])
	for _, pid := range s.pids {
		s.walk.stat = statPath(s.walk.stat, pid)
		b, err := s.r.read(string(s.walk.stat))
		if err != nil {
			continue
		}
		st, err := parseProcStat(b)
		if err != nil {
			continue
		}
		e := scanEntry{start: st.StartTime, ppid: st.PPID, total: st.total(), child: st.CUTime + st.CSTime}
		if old, ok := s.last[pid]; ok && old.start == e.start {
			e.name = old.name
		} else {
			e.name = append([]byte(nil), statComm(b)...)
		}
		s.cur[pid] = e
	}
	out := procScan{T: now}
	if s.scanned {
		s.account(&out, self, service)
	}
	s.scanned, s.bootTicks = true, boot
	s.last, s.cur = s.cur, s.last
	return out
}

// account fills out with each process's CPU since the last scan: its own
// growth and its cutime's, less what the processes seen last time that are
// gone now brought into their surviving ancestor's cutime when they were
// reaped (counted already, up to the last scan, while they ran). Only the
// ancestor's cutime growth can hold them: a child the kernel reaped without
// a wait (its parent ignores SIGCHLD) adds nothing there, and the parent's
// own CPU is not taken for it. A process and its parent that both end
// between two scans pass their counts up to the nearest ancestor still
// running. (cpuAccount does the same for the service's tree.)
func (s *procScanner) account(out *procScan, self, service int) {
	growth := make(map[int]int64, 64)
	reaped := make(map[int]int64, 16) // cutime growth not yet explained
	for pid, e := range s.cur {
		old, ok := s.last[pid]
		switch {
		case ok && old.start == e.start:
			growth[pid] = max(e.total-old.total, 0)
			if d := e.child - old.child; d > 0 {
				reaped[pid] = d
			}
		case e.start+userHZ >= s.bootTicks:
			growth[pid] = e.total // born since the last scan
		}
	}
	gone := func(pid int) bool {
		e, ok := s.cur[pid]
		return !ok || e.start != s.last[pid].start
	}
	for pid, old := range s.last {
		if !gone(pid) {
			continue
		}
		p := old.ppid
		for depth := 0; depth < 64; depth++ {
			if _, seen := s.last[p]; !seen || !gone(p) {
				break
			}
			p = s.last[p].ppid
		}
		if b := reaped[p]; b > 0 {
			d := min(old.total, b)
			growth[p] -= d
			reaped[p] = b - d
		}
	}
	s.reapedBySelf(out, reaped[self], self, service, gone)
	clear(s.class)
	for pid, g := range growth {
		if g <= 0 {
			continue
		}
		switch s.classify(pid, self, service) {
		case classHelper:
			out.helperTicks += g
		case classService:
			out.serviceTicks += g
		case classOther:
			out.otherTicks += g
			e := s.cur[pid]
			out.others = append(out.others, procUse{pid: pid, start: e.start, name: s.name(pid, e), ticks: g})
		}
	}
}

// reapedBySelf counts what perflab's cutime grew by beyond what the scans
// saw of its children that ended: a profiler's last ticks before it
// exited, and all of one that started and ended between two scans. They
// are perflab's helpers' CPU; left out, they read as other processes' (a
// window that started a py-spy for each of 14 recycled workers called
// 0.60 of 2 cores "other processes" on a quiet machine). When the
// service, a child of perflab, ended in the same interval (a batch
// program), the rest is the service's.
func (s *procScanner) reapedBySelf(out *procScan, ticks int64, self, service int, gone func(int) bool) {
	if ticks <= 0 {
		return
	}
	if e, ok := s.last[service]; ok && service > 0 && e.ppid == self && gone(service) {
		out.serviceTicks += ticks
		return
	}
	out.helperTicks += ticks
}

// classify tells whose process pid is by walking up its parents.
func (s *procScanner) classify(pid, self, service int) int8 {
	if c, ok := s.class[pid]; ok {
		return c
	}
	var c int8
	switch e, ok := s.cur[pid]; {
	case pid == service:
		c = classService
	case pid == self:
		c = classSelf
	case !ok || e.ppid <= 1 || e.ppid == pid:
		c = classOther
	default:
		s.class[pid] = classOther // breaks a cycle of reused pids
		c = s.classify(e.ppid, self, service)
		if c == classSelf {
			c = classHelper
		}
	}
	s.class[pid] = c
	return c
}

func (s *procScanner) name(pid int, e scanEntry) string {
	k := procKey{pid, e.start}
	if n, ok := s.names[k]; ok {
		return n
	}
	if len(s.names) >= maxNames {
		clear(s.names)
	}
	n := string(e.name)
	s.names[k] = n
	return n
}

// statComm is the command name of a /proc/PID/stat line: between the first
// '(' and the last ')'.
func statComm(b []byte) []byte {
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j <= i {
		return nil
	}
	return b[i+1 : j]
}

// bootTicks is the time since boot in USER_HZ ticks, the clock of
// /proc/PID/stat's start time (0 if unreadable).
func bootTicks() uint64 {
	d, err := sinceBoot()
	if err != nil {
		return 0
	}
	return uint64(d / (time.Second / userHZ))
}

// sinceBoot is the time since boot, to the nanosecond.
func sinceBoot() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, fmt.Errorf("reading the time since boot: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
