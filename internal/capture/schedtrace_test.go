package capture

import (
	"testing"
	"time"
)

func TestParseSchedLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want SchedLine
		ok   bool
	}{
		{"SCHED 1708ms: gomaxprocs=2 idleprocs=1 threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 27 30 ]",
			SchedLine{At: 1708 * time.Millisecond, GOMAXPROCS: 2, IdleProcs: 1}, true},
		{"SCHED 0ms: gomaxprocs=4 idleprocs=0 threads=4 spinningthreads=1 needspinning=0 idlethreads=1 runqueue=3 [ 0 1 2 0 ] schedticks=[ 0 3 1 1 ]",
			SchedLine{GOMAXPROCS: 4, SpinningThreads: 1, RunQueue: 3, LocalRunQueue: 3}, true},
		// Go versions before schedticks.
		{"SCHED 100ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=0 runqueue=0 [1 2]",
			SchedLine{At: 100 * time.Millisecond, GOMAXPROCS: 2, LocalRunQueue: 3}, true},
		{"SCHED 100ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=0 runqueue=0 [1 2", SchedLine{}, false},
		{"SCHED 100ms: gomaxprocs=1 idleprocs=0 threads=3 spinningthreads=0 idlethreads=0 runqueue=0 [ 5 ]",
			SchedLine{At: 100 * time.Millisecond, GOMAXPROCS: 1, LocalRunQueue: 5}, true},
		{"SCHED 100ms: gomaxprocs=2 idleprocs=3 threads=3 spinningthreads=0 runqueue=0 [ 0 0 ]", SchedLine{}, false},
		{"SCHED 100ms: gomaxprocs=2 idleprocs=1 threads=3 runqueue=0 [ 0 0 ]", SchedLine{}, false},
		{"SCHED -5ms: gomaxprocs=2 idleprocs=1 spinningthreads=0 runqueue=0 [ 0 0 ]", SchedLine{}, false},
		{"SCHED 5ms: gomaxprocs=+2 idleprocs=1 spinningthreads=0 runqueue=0 [ 0 0 ]", SchedLine{}, false},
		{"SCHED 5ms: gomaxprocs=2 idleprocs=1 spinningthreads=0 runqueue=0 [ 0 x ]", SchedLine{}, false},
		{"SCHEDULE 5ms", SchedLine{}, false},
		{"gc 1 @0.012s 2%: 0.026+0.39+0.10 ms clock", SchedLine{}, false},
	} {
		got, ok := ParseSchedLine(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseSchedLine(%q) = %+v, %t; want %+v, %t", c.line, got, ok, c.want, c.ok)
		}
	}
	l := SchedLine{GOMAXPROCS: 2, IdleProcs: 1, SpinningThreads: 1, RunQueue: 1, LocalRunQueue: 2}
	if l.Running() != 0 || (l.RunQueue+l.LocalRunQueue) != 3 {
		t.Errorf("%+v: %d running, %d runnable; want 0 and 3", l, l.Running(), (l.RunQueue + l.LocalRunQueue))
	}
}

func FuzzParseSchedLine(f *testing.F) {
	f.Add("SCHED 1708ms: gomaxprocs=2 idleprocs=1 threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 27 30 ]")
	f.Add("SCHED 0ms: gomaxprocs=4 idleprocs=0 threads=4 spinningthreads=1 needspinning=0 idlethreads=1 runqueue=3 [ 0 1 2 0 ] schedticks=[ 0 3 1 1 ]")
	f.Add("SCHED 10ms: gomaxprocs=1 idleprocs=0 spinningthreads=0 runqueue=0 [ 1")
	f.Fuzz(func(t *testing.T, line string) {
		l, ok := ParseSchedLine(line)
		if !ok {
			if l != (SchedLine{}) {
				t.Fatalf("ParseSchedLine(%q) = %+v, false; want the zero line", line, l)
			}
			return
		}
		if l.At < 0 || l.GOMAXPROCS < 1 || l.IdleProcs > l.GOMAXPROCS || l.Running() < 0 || l.Running() > l.GOMAXPROCS || (l.RunQueue+l.LocalRunQueue) < 0 {
			t.Fatalf("ParseSchedLine(%q) = %+v", line, l)
		}
	})
}
