package capture

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
)

// JcmdThreads reads every JVM thread's stack of pid with `jcmd PID
// Thread.print`. ctx bounds the time it may take.
func JcmdThreads(ctx context.Context, pid int) (*Snapshot, error) {
	return jcmdTool.snapshot(ctx, pid, ParseJcmdThreads, strconv.Itoa(pid), "Thread.print")
}

// jvmWaitsOn matches the object a thread waits for: "- waiting to lock
// <0x…> (a java.lang.Object)", "- parking to wait for <0x…> (a
// java.util.concurrent.Semaphore$NonfairSync)", "- waiting on <0x…> (a …)".
var jvmWaitsOn = regexp.MustCompile(`^- (?:waiting to lock|parking to wait for|waiting on) +<[^>]*> \(a ([^)]*)\)`)

// ParseJcmdThreads reads `jcmd PID Thread.print` (the JVM's thread dump,
// as jstack and SIGQUIT print it). At most MaxSnapshotBytes are read,
// lines are cut at 64 KiB and a thread keeps 128 frames.
func ParseJcmdThreads(r io.Reader) (*Snapshot, error) { return parseJcmdThreads(r, defaultLimits) }

func parseJcmdThreads(r io.Reader, l limits) (*Snapshot, error) {
	s := &Snapshot{Source: runfmt.StackSourceJcmd, maxThreads: l.threads}
	lr := newLineReader(r, l)
	var t *Thread
	flush := func() {
		if t != nil {
			s.add(*t)
		}
		t = nil
	}
	for line := range lr.lines() {
		if h, ok := jvmHeader(line); ok {
			flush()
			t = &h
			continue
		}
		if t != nil {
			t.jvmLine(strings.TrimSpace(line))
		}
	}
	flush()
	return lr.finish(s)
}

// jvmHeader reads a thread's first line: its quoted name, its native ID
// (hexadecimal before JDK 19, decimal since) and what it does:
// "\"worker-0\" #13 prio=5 … nid=0x5a36 waiting for monitor entry  [0x…]".
// Read by hand: a regular expression costs ten times as much, and a dump
// may hold a hundred thousand threads.
func jvmHeader(line string) (Thread, bool) {
	if !strings.HasPrefix(line, "\"") {
		return Thread{}, false
	}
	i := strings.LastIndex(line, " nid=")
	if i < 0 {
		return Thread{}, false
	}
	end := strings.LastIndex(line[:i], "\" ")
	if end < 1 {
		return Thread{}, false
	}
	nid, state, _ := strings.Cut(line[i+len(" nid="):], " ")
	state, _, _ = strings.Cut(state, "[")
	t := Thread{Name: line[1:end], TID: parseNID(nid), State: strings.TrimSpace(state)}
	t.ID = int64(t.TID)
	return t, true
}

// jvmLine reads one line of a thread's block.
func (t *Thread) jvmLine(line string) {
	if st, ok := strings.CutPrefix(line, "java.lang.Thread.State: "); ok {
		t.State = st
		return
	}
	if strings.HasPrefix(line, "- ") {
		if m := jvmWaitsOn.FindStringSubmatch(line); m != nil && t.WaitsOn == "" {
			t.WaitsOn = m[1]
		}
		return
	}
	frame, ok := strings.CutPrefix(line, "at ")
	if !ok || !strings.HasSuffix(frame, ")") || len(t.Frames) >= maxThreadFrames {
		return
	}
	open := strings.LastIndexByte(frame, '(')
	if open < 0 {
		return
	}
	loc := frame[open+1 : len(frame)-1]
	if _, after, ok := strings.Cut(loc, "/"); ok { // "java.base@17.0.15/Thread.java:840"
		loc = after
	}
	file, n := splitFileLine(loc)
	if n == 0 { // "Native Method", "Unknown Source"
		file = ""
	}
	t.Frames = append(t.Frames, Frame{Function: frame[:open], File: file, Line: n})
}

// parseNID reads a native thread ID: "0x5a36" or "23094".
func parseNID(s string) int {
	base := 10
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		s, base = h, 16
	}
	n, err := strconv.ParseInt(s, base, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int(n)
}
