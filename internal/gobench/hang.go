package gobench

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// TimeoutError is a test binary that ran past --timeout, which perflab
// stopped: the testing package applies -test.timeout to tests only, so a
// benchmark that never ends would otherwise run for good.
type TimeoutError struct {
	Timeout time.Duration
	// Benchmark is the benchmark the binary was in: its full name as the
	// binary printed it before its timed loop ("BenchmarkParse/small-2"),
	// else the benchmark function on the goroutines' stacks
	// ("BenchmarkParse"); "" when neither names one.
	Benchmark string
	// Stack is the stack of the goroutine that ran the benchmark's own
	// code when it was stopped, as the Go runtime printed it on SIGQUIT.
	Stack string
}

func (e *TimeoutError) Error() string {
	if e.Benchmark == "" {
		return fmt.Sprintf("the test binary ran past --timeout %s and perflab stopped it (its stacks named no benchmark)", e.Timeout)
	}
	return fmt.Sprintf("%s ran past --timeout %s and perflab stopped it (Go's -timeout does not cover benchmarks)", e.Benchmark, e.Timeout)
}

// maxQuitDump bounds the goroutine dump kept after SIGQUIT; it is read
// from its start, where the runtime puts the goroutines a benchmark
// started soon after the testing package's own.
const maxQuitDump = 1 << 20

// quitDump keeps the start of what the binary writes to stderr once armed
// (from the SIGQUIT on): the Go runtime's dump of every goroutine.
type quitDump struct {
	mu    sync.Mutex
	armed bool
	buf   []byte
	max   int
}

func (d *quitDump) arm() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = true
}

// Write keeps p when armed, up to max bytes in all; it never fails.
func (d *quitDump) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.armed && len(d.buf) < d.max {
		d.buf = append(d.buf, p[:min(len(p), d.max-len(d.buf))]...)
	}
	return len(p), nil
}

func (d *quitDump) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return string(d.buf)
}

// maxPending bounds the unfinished last line lastLine keeps.
const maxPending = 1 << 10

// lastLine keeps what was written after the last newline: a benchmark's
// name, which the testing package prints before the benchmark's timed
// loop and ends with its result.
type lastLine struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the part of p after its last newline (or appends p when it
// has none), up to maxPending bytes; it never fails.
func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rest := p
	if i := strings.LastIndexByte(string(p), '\n'); i >= 0 {
		l.buf, rest = l.buf[:0], p[i+1:]
	}
	if room := maxPending - len(l.buf); room > 0 {
		l.buf = append(l.buf, rest[:min(len(rest), room)]...)
	}
	return len(p), nil
}

func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// hung names the benchmark a stopped binary of package importPath was in,
// from the runtime's goroutine dump and the unfinished line of its
// output.
func hung(importPath, dump, pending string) *TimeoutError {
	fn, stack := benchmarkStack(importPath, dump)
	te := &TimeoutError{Benchmark: fn, Stack: stack}
	name := strings.TrimSpace(pending)
	top, _, _ := strings.Cut(name, "/")
	if i := strings.LastIndexByte(top, '-'); i > 0 && strings.Trim(top[i+1:], "0123456789") == "" {
		top = top[:i] // the -GOMAXPROCS suffix
	}
	if isBenchmarkName(top) && !strings.ContainsAny(name, " \t") && (fn == "" || fn == top) {
		te.Benchmark = name
	}
	return te
}

// maxStackLines bounds the stack a TimeoutError keeps.
const maxStackLines = 40

// benchmarkStack finds, in a Go runtime's goroutine dump, the goroutine
// that runs a benchmark function of package importPath (or its external
// test package) and returns that function's name ("BenchmarkParse") and
// the goroutine's stack. A goroutine whose benchmark frame waits in the
// testing package (b.Run, b.RunParallel) is passed over for one that runs
// the benchmark's own code, when there is one.
func benchmarkStack(importPath, dump string) (name, stack string) {
	var waiting string
	var waitingStack string
	for block := range strings.SplitSeq(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		var frames []string // the functions, innermost first
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "created by ") {
				frames = append(frames, frameFunc(l))
			}
		}
		for i, f := range frames {
			fn := benchmarkFunc(importPath, f)
			if fn == "" {
				continue
			}
			if i > 0 && strings.HasPrefix(frames[i-1], "testing.") {
				if waiting == "" {
					waiting, waitingStack = fn, tidyStack(lines)
				}
				break
			}
			return fn, tidyStack(lines)
		}
	}
	return waiting, waitingStack
}

// frameFunc is a stack line's function: the line without its arguments.
func frameFunc(line string) string {
	if i := strings.LastIndexByte(line, '('); i > 0 {
		return line[:i]
	}
	return line
}

// benchmarkFunc is the top-level benchmark function a frame's function
// belongs to ("BenchmarkParse" for example.com/m.BenchmarkParse.func1),
// or "" when it is not one of package importPath's.
func benchmarkFunc(importPath, fn string) string {
	for _, pkg := range []string{importPath + ".", importPath + "_test."} {
		if rest, ok := strings.CutPrefix(fn, pkg); ok {
			top, _, _ := strings.Cut(rest, ".")
			if isBenchmarkName(top) {
				return top
			}
		}
	}
	return ""
}

// frameNoise is what the runtime adds to a frame on SIGQUIT (frame, stack
// and program counters) and to a goroutine's header (its g and m).
var frameNoise = regexp.MustCompile(` fp=0x[0-9a-f]+ sp=0x[0-9a-f]+ pc=0x[0-9a-f]+$| gp=0x[0-9a-f]+ m=\S+( mp=0x[0-9a-f]+)?`)

// tidyStack is a goroutine's lines without the runtime's addresses, at
// most maxStackLines of them.
func tidyStack(lines []string) string {
	if len(lines) > maxStackLines {
		lines = append(lines[:maxStackLines:maxStackLines], "\t[...]")
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = frameNoise.ReplaceAllString(l, "")
	}
	return strings.Join(out, "\n")
}
