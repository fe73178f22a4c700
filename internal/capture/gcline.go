package capture

import (
	"regexp"
	"strconv"
	"time"
)

// GCEvent is one garbage collection as a GODEBUG=gctrace=1 line reports it:
//
//	gc 12 @3.456s 4%: 0.021+1.2+0.015 ms clock, 0.042+0.5/1.1/0+0.030 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P
//
// (see the runtime package's GODEBUG documentation). Sizes are in MB as the
// runtime prints them (MiB, rounded down).
type GCEvent struct {
	N                int           // GC number, from 1
	At               time.Duration // since program start
	PctCPUSinceStart float64       // share of available CPU spent in GC since program start, in percent

	// Wall-clock phases: the two stop-the-world pauses and the concurrent mark between.
	STWSweep, Concurrent, STWMark time.Duration

	// CPU time: sweep-termination pause, mark assists (allocating goroutines
	// helping), background mark workers, idle mark workers, mark-termination pause.
	CPUSTWSweep, CPUAssist, CPUBackground, CPUIdle, CPUSTWMark time.Duration

	HeapStartMiB, HeapEndMiB, HeapLiveMiB float64 // heap at start, at end, live (marked) after this GC
	GoalMiB                               float64 // heap goal
	StacksMiB, GlobalsMiB                 float64 // scannable stacks and globals (Go 1.18+; 0 before)
	Procs                                 int     // GOMAXPROCS
	Forced                                bool    // runtime.GC() or debug.FreeOSMemory, not the pacer
}

const gcNum = `([0-9]+(?:\.[0-9]+)?)`

// gcLine matches a gctrace line anywhere in a log line (another writer may
// have left text before it). "# MB stacks" and "# MB globals" came in Go
// 1.18; Go 1.26 notes a cycle that also looked for leaked goroutines after
// the percentage: "3% (checking for goroutine leaks): ".
var gcLine = regexp.MustCompile(`(?:^|[^0-9A-Za-z_])gc ([0-9]+) @` + gcNum + `s ` + gcNum + `%(?: \([a-z ]{1,64}\))?: ` +
	gcNum + `\+` + gcNum + `\+` + gcNum + ` ms clock, ` +
	gcNum + `\+` + gcNum + `/` + gcNum + `/` + gcNum + `\+` + gcNum + ` ms cpu, ` +
	gcNum + `->` + gcNum + `->` + gcNum + ` MB, ` + gcNum + ` MB goal, ` +
	`(?:` + gcNum + ` MB stacks, )?(?:` + gcNum + ` ?MB globals, )?` +
	`([0-9]+) P( \(forced\))?`)

// GCLineMatch is in every gctrace line: a log drain passes only the lines
// containing it to ParseGCLine.
const GCLineMatch = "gc "

// IsGCLine says whether line is a gctrace line.
func IsGCLine(line string) bool { return gcLine.MatchString(line) }

// ParseGCLine parses one gctrace line. ok is false for any other line.
func ParseGCLine(line string) (GCEvent, bool) {
	m := gcLine.FindStringSubmatch(line)
	if m == nil {
		return GCEvent{}, false
	}
	f := make([]float64, len(m))
	for i := 2; i <= 17; i++ {
		f[i], _ = strconv.ParseFloat(m[i], 64) // empty optional groups stay 0
	}
	n, err1 := strconv.Atoi(m[1])
	procs, err2 := strconv.Atoi(m[18])
	if err1 != nil || err2 != nil {
		return GCEvent{}, false
	}
	return GCEvent{
		N: n, At: seconds(f[2]), PctCPUSinceStart: f[3],
		STWSweep: millis(f[4]), Concurrent: millis(f[5]), STWMark: millis(f[6]),
		CPUSTWSweep: millis(f[7]), CPUAssist: millis(f[8]), CPUBackground: millis(f[9]),
		CPUIdle: millis(f[10]), CPUSTWMark: millis(f[11]),
		HeapStartMiB: f[12], HeapEndMiB: f[13], HeapLiveMiB: f[14], GoalMiB: f[15],
		StacksMiB: f[16], GlobalsMiB: f[17],
		Procs: procs, Forced: m[19] != "",
	}, true
}

// GCCPU is the CPU the collector itself used: both pauses, assists and
// background marking; idle marking is left out because it only runs on
// otherwise idle processors.
func (e GCEvent) GCCPU() time.Duration {
	return e.CPUSTWSweep + e.CPUAssist + e.CPUBackground + e.CPUSTWMark
}

// Pauses are the event's two stop-the-world pauses, in wall-clock time.
func (e GCEvent) Pauses() [2]time.Duration { return [2]time.Duration{e.STWSweep, e.STWMark} }

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
