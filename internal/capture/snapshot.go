package capture

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// Bounds of a stack snapshot: a hung service may have a million
// goroutines, and a tool's output is outside data. What lies beyond a
// bound is dropped and Snapshot.Truncated says so; nothing fails.
const (
	// MaxSnapshotBytes bounds one tool's output for one process. A
	// goroutine dump takes 1–2 KiB per goroutine: 32 MiB holds some 20,000.
	MaxSnapshotBytes = 32 << 20
	// maxSnapshotThreads bounds the threads kept of one process.
	maxSnapshotThreads = 100_000
	// maxThreadFrames bounds the frames kept of one thread, innermost
	// first (the Go runtime prints 100 at most).
	maxThreadFrames = 128
	// maxSnapshotLine bounds one line of output; the rest of a longer
	// one is dropped.
	maxSnapshotLine = 64 << 10
)

// limits are what a parser reads at most: MaxSnapshotBytes of output and
// maxSnapshotThreads threads (the tests lower them).
type limits struct {
	bytes   int64
	threads int
}

var defaultLimits = limits{bytes: MaxSnapshotBytes, threads: maxSnapshotThreads}

// Frame is one frame of a thread's stack.
type Frame struct {
	Function string
	File     string
	Line     int
}

// Thread is one thread, or goroutine, of a snapshot.
type Thread struct {
	// ID is the goroutine's ID, or the tool's ID of the thread.
	ID int64
	// TID is the OS thread's ID when the tool names it (py-spy, jcmd,
	// the kernel), else 0.
	TID int
	// Name is the thread's name, when it has one.
	Name string
	// State is as the tool prints it: "sync.Mutex.Lock" or "IO wait"
	// (Go), "idle" or "active" (py-spy), "BLOCKED (on object monitor)"
	// (jcmd), "S (sleeping)" (the kernel).
	State string
	// WaitMinutes is how long a goroutine has waited, as the Go runtime
	// reports it (in whole minutes, from one minute on).
	WaitMinutes int
	// WaitsOn is the object a JVM thread waits for, as jcmd names it:
	// "java.lang.Object" for a monitor, the synchroniser of a parked one.
	WaitsOn string
	// Frames is the stack, innermost frame first (at most 128).
	Frames []Frame
	// CreatedBy is the go statement that started a goroutine.
	CreatedBy *Frame
	// Kernel is the kernel's view of the thread, when it was joined in.
	Kernel *KernelThread
}

// Snapshot is one process's threads as one tool read them.
type Snapshot struct {
	PID int
	// Source is the tool: a runfmt.StackSource constant.
	Source  runfmt.StackSource
	Threads []Thread
	// Bytes is the size of the tool's output.
	Bytes int64
	// Truncated says the output was cut at MaxSnapshotBytes, or threads
	// beyond the bound were dropped.
	Truncated bool
	// Elapsed is how long the tool took.
	Elapsed time.Duration

	maxThreads int // 0: maxSnapshotThreads
}

// add keeps t unless the snapshot holds its bound of threads already.
func (s *Snapshot) add(t Thread) {
	if limit := cmp.Or(s.maxThreads, maxSnapshotThreads); len(s.Threads) >= limit {
		s.Truncated = true
		return
	}
	if len(t.Frames) > maxThreadFrames {
		t.Frames = t.Frames[:maxThreadFrames]
	}
	s.Threads = append(s.Threads, t)
}

// JoinKernel attaches the kernel's view of each thread to the threads the
// tool read, by OS thread ID.
func (s *Snapshot) JoinKernel(kt []KernelThread) {
	byTID := make(map[int]*KernelThread, len(kt))
	for i := range kt {
		byTID[kt[i].TID] = &kt[i]
	}
	for i := range s.Threads {
		if k, ok := byTID[s.Threads[i].TID]; ok && s.Threads[i].TID > 0 {
			s.Threads[i].Kernel = k
		}
	}
}

// errNoThreads is output that holds no stack at all.
var errNoThreads = errors.New("no thread stacks in the output")

// lineReader reads the lines of at most limits.bytes of a tool's
// output, each cut at maxSnapshotLine: bufio.Scanner fails on a longer
// line, and a hostile output must not stop the read of the rest.
type lineReader struct {
	r         *bufio.Reader
	n         int64 // bytes read
	limit     int64
	truncated bool
	err       error
}

func newLineReader(r io.Reader, l limits) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(io.LimitReader(r, l.bytes+1), maxSnapshotLine), limit: l.bytes}
}

// next returns the next line without its end of line; false at the end.
func (lr *lineReader) next() (string, bool) {
	if lr.err != nil {
		return "", false
	}
	line, err := lr.r.ReadSlice('\n')
	lr.n += int64(len(line))
	text := string(line)
	for errors.Is(err, bufio.ErrBufferFull) { // the rest of a long line is dropped
		line, err = lr.r.ReadSlice('\n')
		lr.n += int64(len(line))
	}
	if lr.n > lr.limit {
		lr.truncated, lr.err = true, io.EOF
		return "", false
	}
	if err != nil {
		lr.err = err
		if text == "" {
			return "", false
		}
	}
	return strings.TrimRight(text, "\r\n"), true
}

// lines are the lines next returns, to the end of the output.
func (lr *lineReader) lines() iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			line, ok := lr.next()
			if !ok || !yield(line) {
				return
			}
		}
	}
}

// readErr is the error that ended the read, nil at the end of the output.
func (lr *lineReader) readErr() error {
	if lr.err == io.EOF {
		return nil
	}
	return lr.err
}

// finish records in s how much of the output lr read and whether it was
// cut; the error is the one that ended the read, or errNoThreads when s
// holds no thread. s keeps what was read even with an error.
func (lr *lineReader) finish(s *Snapshot) (*Snapshot, error) {
	s.Bytes, s.Truncated = min(lr.n, lr.limit), s.Truncated || lr.truncated
	if err := lr.readErr(); err != nil {
		return s, err
	}
	if len(s.Threads) == 0 {
		return s, errNoThreads
	}
	return s, nil
}

// splitFileLine splits "file:line" at its last colon; line is 0 when
// there is none.
func splitFileLine(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 {
		return s, 0
	}
	return s[:i], n
}
