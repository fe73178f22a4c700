package capture

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
)

// RbSpySnapshot reads the stack of the Ruby thread of pid that holds the
// interpreter's lock with `rbspy snapshot`: rbspy reads that one thread,
// not the others. ctx bounds the time it may take.
func RbSpySnapshot(ctx context.Context, pid int) (*Snapshot, error) {
	return rbSpyTool.snapshot(ctx, pid, ParseRbSpySnapshot, "snapshot", "--pid", strconv.Itoa(pid))
}

// ParseRbSpySnapshot reads what `rbspy snapshot` prints: one frame a
// line, "method - file:line", the outermost first (the order is turned
// over here: innermost first, as every snapshot keeps it). Lines of
// another shape are skipped; at most MaxSnapshotBytes are read.
func ParseRbSpySnapshot(r io.Reader) (*Snapshot, error) { return parseRbSpySnapshot(r, defaultLimits) }

func parseRbSpySnapshot(r io.Reader, l limits) (*Snapshot, error) {
	s := &Snapshot{Source: runfmt.StackSourceRbSpy, maxThreads: l.threads}
	lr := newLineReader(r, l)
	var frames []Frame
	for line := range lr.lines() {
		i := strings.LastIndex(line, " - ")
		if i <= 0 {
			continue
		}
		file, n := splitFileLine(strings.TrimSpace(line[i+3:]))
		if file == "(unknown)" {
			file = ""
		}
		frames = append(frames, Frame{Function: strings.TrimSpace(line[:i]), File: file, Line: n})
		if len(frames) == 2*maxThreadFrames { // keep the innermost ones
			frames = append(frames[:0], frames[maxThreadFrames:]...)
		}
	}
	if len(frames) > 0 {
		slices.Reverse(frames)
		s.add(Thread{ID: 1, State: "holds the GVL", Frames: frames})
	}
	return lr.finish(s)
}
