package capture

import (
	"strconv"
	"strings"
	"time"
)

// SchedLine is one line of the Go runtime's scheduler trace
// (GODEBUG=schedtrace=MS), written by its sysmon thread every MS
// milliseconds:
//
//	SCHED 1708ms: gomaxprocs=2 idleprocs=1 threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 27 30 ]
//
// Each is an instant of the scheduler: its Ps (GOMAXPROCS of them) are
// idle, spinning (an M holding one looks for a goroutine to run) or
// running goroutines; runnable goroutines wait in the global and the Ps'
// run queues.
type SchedLine struct {
	// At is since the trace's first line (the runtime's start).
	At time.Duration
	// GOMAXPROCS, IdleProcs and SpinningThreads are the Ps, those idle,
	// and the Ms spinning (each holding a P).
	GOMAXPROCS, IdleProcs, SpinningThreads int
	// RunQueue is the goroutines in the global run queue, LocalRunQueue
	// those in the Ps' own, summed.
	RunQueue, LocalRunQueue int
}

// Running is how many Ps were running goroutines: neither idle nor held
// by a spinning M (or a goroutine in a system call).
func (l SchedLine) Running() int { return max(0, l.GOMAXPROCS-l.IdleProcs-l.SpinningThreads) }

// SchedLineMatch begins every scheduler trace line: a log drain passes
// only the lines containing it to ParseSchedLine.
const SchedLineMatch = "SCHED "

// IsSchedLine says whether line is a scheduler trace line.
func IsSchedLine(line string) bool {
	_, ok := ParseSchedLine(line)
	return ok
}

// ParseSchedLine parses one scheduler trace line (the short form, without
// GODEBUG=scheddetail=1). ok is false for any other line, or one with
// more Ps idle than there are. (Idle and spinning may add up to more: an M
// that stops spinning gives its P back first.)
func ParseSchedLine(line string) (SchedLine, bool) {
	rest, ok := strings.CutPrefix(line, SchedLineMatch)
	if !ok {
		return SchedLine{}, false
	}
	ms, rest, ok := strings.Cut(rest, "ms: ")
	at, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || at < 0 || at > int64(time.Duration(1<<62)/time.Millisecond) {
		return SchedLine{}, false
	}
	l := SchedLine{At: time.Duration(at) * time.Millisecond}
	// The Ps' run queues follow in brackets: "[ 0 1 ]" (older Go: "[0 1]").
	if open := strings.IndexByte(rest, '['); open >= 0 {
		end := strings.IndexByte(rest[open:], ']')
		if end < 0 {
			return SchedLine{}, false
		}
		for _, q := range strings.Fields(rest[open+1 : open+end]) {
			n, ok := count(q)
			if !ok {
				return SchedLine{}, false
			}
			l.LocalRunQueue += n
		}
		rest = rest[:open]
	}
	fields := map[string]*int{"gomaxprocs": &l.GOMAXPROCS, "idleprocs": &l.IdleProcs, "spinningthreads": &l.SpinningThreads, "runqueue": &l.RunQueue}
	seen := 0
	for _, tok := range strings.Fields(rest) {
		k, v, kv := strings.Cut(tok, "=")
		if p, known := fields[k]; kv && known {
			n, ok := count(v)
			if !ok {
				return SchedLine{}, false
			}
			*p = n
			seen++
		}
	}
	if seen != len(fields) || l.GOMAXPROCS < 1 || l.IdleProcs > l.GOMAXPROCS {
		return SchedLine{}, false
	}
	return l, true
}

// count reads a count the runtime printed: digits, at most 1<<30.
func count(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && digits(s) && n <= 1<<30
}
