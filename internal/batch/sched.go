package batch

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"perflab/internal/capture"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
)

// schedTraceMS is the step of the Go scheduler's trace perflab asks a Go
// program of gomaxprocs Ps for (GODEBUG=schedtrace=MS): 25 ms, longer
// with more Ps. Each line is an instant: on a busy machine the runtime's
// threads hold a P in transit in up to 40% of them, so a phase's ends are
// found from many lines. Its sysmon thread writes a line in 15 pieces
// and 3 a P, each a write that wakes perflab's reader: 25 ms with 2 Ps is
// some 800 writes a second (1.5% of a core of perflab's), and the step
// grows with the Ps to keep them about that many.
func schedTraceMS(gomaxprocs int) int { return max(25, 15+3*gomaxprocs) }

// schedTraceMax bounds the lines kept (seven hours of them at 25 ms).
const schedTraceMax = 1 << 20

// A Go program's timeline comes from its scheduler: at each line of its
// trace, how many of its Ps ran goroutines, neither idle nor held by a
// thread looking for one. The Ps are the cores it could use; one idle had
// no goroutine to run, whatever else the machine ran on its core. The
// kernel cannot tell this for Go: with one goroutine, the runtime wakes a
// second thread to look for work each time the goroutine is preempted
// (every 10 ms), and on a busy machine that thread waits for a CPU as
// long as a worker would, so a serial phase shows two threads wanting the
// cores. The goroutines waiting for a P are left out: with a P free, one
// waits only while the thread that would run it waits for a CPU (the same
// busy machine); with none free, the Ps are all running already.

// schedTrace collects a Go program's scheduler trace as perflab reads it,
// with the time each line was read.
type schedTrace struct {
	mu    sync.Mutex
	lines []capture.SchedLine
	read  []time.Time
	// mixed says a line went back in time: more than one process writes
	// the trace (the program's Go children inherit its GODEBUG).
	mixed bool
}

// add takes one line of the program's output (the target's drain calls it
// from one goroutine).
func (s *schedTrace) add(line string) {
	l, ok := capture.ParseSchedLine(line)
	if !ok {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.lines); n > 0 && l.At < s.lines[n-1].At {
		s.mixed = true
	}
	if len(s.lines) < schedTraceMax {
		s.lines, s.read = append(s.lines, l), append(s.read, now)
	}
}

// schedGapSteps: lines further apart than this many of the trace's
// steps leave a gap (its sysmon thread held off a CPU), where the program
// may have changed phase anywhere.
const schedGapSteps = 4

// gapSplit says where in a gap of the trace, from from to to (seconds
// since the program's start), the program went from its work before to
// its work after (rising: to more Ps running), from another source; false
// when it cannot tell.
type gapSplit func(from, to float64, rising bool) (float64, bool)

// timeline is the trace as steps of the program's run (start to wall
// seconds): each line stands for the time halfway to its neighbours, its
// Ps running goroutines as busy; in a gap (schedGapSteps) between lines
// that differ, up to where split puts the change. The trace counts from
// the runtime's start, a moment after the program's: each line's time is
// placed at the earliest the reading of the lines allows (none was read
// before it was written).
func (s *schedTrace) timeline(start time.Time, wall float64, split gapSplit) findings.Timeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	tl := findings.Timeline{Source: runfmt.SourceGoScheduler}
	if s.mixed || len(s.lines) < timelineMinSlices {
		return tl
	}
	offset := wall
	for i, l := range s.lines {
		offset = min(offset, s.read[i].Sub(start).Seconds()-l.At.Seconds())
	}
	offset = max(0, offset)
	at := make([]float64, len(s.lines))
	steps := make([]float64, 0, len(s.lines))
	for i, l := range s.lines {
		at[i] = offset + l.At.Seconds()
		if i > 0 {
			steps = append(steps, at[i]-at[i-1])
		}
	}
	slices.Sort(steps)
	tl.StepS = steps[len(steps)/2]
	// bounds[i] is where line i's time begins; bounds[i+1] where it ends.
	bounds := make([]float64, len(at)+1)
	bounds[0], bounds[len(at)] = at[0]-tl.StepS/2, at[len(at)-1]+tl.StepS/2
	for i := 1; i < len(at); i++ {
		bounds[i] = (at[i-1] + at[i]) / 2
		before, after := s.lines[i-1].Running(), s.lines[i].Running()
		if at[i]-at[i-1] > schedGapSteps*tl.StepS && before != after && split != nil {
			if t, ok := split(at[i-1], at[i], after > before); ok {
				bounds[i] = t
			}
		}
	}
	for i, l := range s.lines {
		from, to := max(0, bounds[i]), min(wall, bounds[i+1])
		if to <= from {
			continue
		}
		tl.Slices = append(tl.Slices, findings.Slice{From: from, To: to, BusyS: float64(l.Running()) * (to - from)})
	}
	return tl
}

// withSchedTrace adds schedtrace=ms to a GODEBUG value.
func withSchedTrace(godebug string, ms int) string {
	if godebug == "" {
		return "schedtrace=" + strconv.Itoa(ms)
	}
	return godebug + ",schedtrace=" + strconv.Itoa(ms)
}

// lookupEnv is key's value in env (KEY=VALUE settings, the last one
// counting), and whether env sets it.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// envValue is key's value in env, "" when env does not set it.
func envValue(env []string, key string) string {
	v, _ := lookupEnv(env, key)
	return v
}

// setsSchedTrace says a GODEBUG value sets the scheduler's trace (on, or
// off).
func setsSchedTrace(godebug string) bool {
	for kv := range strings.SplitSeq(godebug, ",") {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "schedtrace" {
			return true
		}
	}
	return false
}
