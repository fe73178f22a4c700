package service

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultLogLimit bounds the service's log file when LaunchConfig.LogLimit
// is 0.
const DefaultLogLimit = 1 << 20

// tailLines is how many lines of the service's output LogTail returns at most.
const tailLines = 200

// tailBytes is how much of the service's latest output LogTail reads its
// lines from, and the ring's size when there is no log file.
const tailBytes = 64 << 10

// maxLine cuts the lines given to OnLine and returned by LogTail.
const maxLine = 4096

// logSink receives the service's stdout and stderr. It must keep up with a
// service that writes hundreds of megabytes a second, so a write does no
// per-line work: it copies the bytes into the file's head or into a ring, and
// searches them (bytes.Index, vectorised) for lines containing match, the
// only lines OnLine receives. The file keeps the first half of the limit as
// written; after that, the most recent half is kept in the ring and written
// after the head (with a marker counting what was left out) at most once a
// second and on close, so the file stays bounded and still ends with the
// service's last words. The last lines (LogTail) are cut from the ring and
// the head when asked for, not kept line by line.
type logSink struct {
	mu      sync.Mutex
	f       *os.File
	headMax int64
	head    int64
	headEnd []byte // the head's last tailBytes, for tail
	ring    []byte
	ringPos int
	ringLen int
	total   int64
	dirty   bool
	flushed time.Time

	// match selects the lines given to onLine (nil: every line); partial
	// is the last maxLine bytes of the unfinished line, kept only then.
	match   []byte
	partial []byte
	// onLine receives the matching lines, called by Write after the lock
	// is released; fresh holds the lines of the current Write for it.
	onLine func(string)
	fresh  []string
	// hide leaves lines out of tail (output perflab asked for, such as
	// the GC trace).
	hide func(string) bool
}

func newLogSink(path string, limit int64) (*logSink, error) {
	if limit <= 0 {
		limit = DefaultLogLimit
	}
	l := &logSink{ring: make([]byte, tailBytes)}
	if path != "" {
		l.headMax = limit / 2
		l.ring = make([]byte, max(limit-limit/2, 1))
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("creating the service's log: %w", err)
		}
		l.f = f
	}
	return l, nil
}

// Write stores p; it never fails, so the service is never blocked by a
// full disk.
func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.write(p)
	fresh := l.fresh
	l.fresh = l.fresh[:0]
	l.mu.Unlock()
	for _, line := range fresh {
		l.onLine(line)
	}
	return len(p), nil
}

func (l *logSink) write(p []byte) {
	l.total += int64(len(p))
	if l.onLine != nil {
		l.scanLines(p)
	}
	rest := p
	if l.head < l.headMax {
		n := min(int64(len(rest)), l.headMax-l.head)
		_, _ = l.f.WriteAt(rest[:n], l.head)
		l.head += n
		l.keepHeadEnd(rest[:n])
		rest = rest[n:]
	}
	if len(rest) == 0 {
		return
	}
	l.toRing(rest)
	if l.f != nil {
		l.dirty = true
		if time.Since(l.flushed) > time.Second {
			l.flush()
		}
	}
}

// scanLines finds the complete lines of p (with the unfinished line before
// it) that contain match and queues them for onLine.
func (l *logSink) scanLines(p []byte) {
	nl := bytes.IndexByte(p, '\n')
	if nl < 0 {
		l.keepPartial(p)
		return
	}
	l.keepPartial(p[:nl])
	if l.match == nil || bytes.Contains(l.partial, l.match) {
		l.emit(l.partial)
	}
	l.partial = l.partial[:0]
	rest := p[nl+1:]
	last := bytes.LastIndexByte(rest, '\n')
	body := rest[:last+1] // complete lines only
	for len(body) > 0 {
		k := 0
		if l.match != nil {
			if k = bytes.Index(body, l.match); k < 0 {
				break
			}
		}
		start := bytes.LastIndexByte(body[:k], '\n') + 1
		end := k + bytes.IndexByte(body[k:], '\n')
		l.emit(body[start:end])
		body = body[end+1:]
	}
	l.keepPartial(rest[last+1:])
}

func (l *logSink) keepHeadEnd(b []byte) { l.headEnd = keepLast(l.headEnd, b, tailBytes) }

// keepPartial appends b to the unfinished line, keeping its last maxLine
// bytes (a GC trace line ends an unfinished line that another writer began).
func (l *logSink) keepPartial(b []byte) { l.partial = keepLast(l.partial, b, maxLine) }

// keepLast appends b to buf and keeps the last n bytes, in buf's array.
func keepLast(buf, b []byte, n int) []byte {
	if len(b) >= n {
		return append(buf[:0], b[len(b)-n:]...)
	}
	if over := len(buf) + len(b) - n; over > 0 {
		buf = append(buf[:0], buf[over:]...)
	}
	return append(buf, b...)
}

func (l *logSink) emit(line []byte) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	l.fresh = append(l.fresh, string(line[:min(len(line), maxLine)]))
}

func (l *logSink) toRing(p []byte) {
	if len(p) >= len(l.ring) {
		p = p[len(p)-len(l.ring):]
	}
	for len(p) > 0 {
		n := copy(l.ring[l.ringPos:], p)
		l.ringPos = (l.ringPos + n) % len(l.ring)
		l.ringLen = min(l.ringLen+n, len(l.ring))
		p = p[n:]
	}
}

// ringBytes appends the ring's content, oldest first, to dst.
func (l *logSink) ringBytes(dst []byte) []byte {
	start := (l.ringPos - l.ringLen + len(l.ring)) % len(l.ring)
	if start+l.ringLen <= len(l.ring) {
		return append(dst, l.ring[start:start+l.ringLen]...)
	}
	dst = append(dst, l.ring[start:]...)
	return append(dst, l.ring[:l.ringPos]...)
}

// flush writes the ring after the head and truncates the file there.
func (l *logSink) flush() {
	l.flushed = time.Now()
	if !l.dirty {
		return
	}
	l.dirty = false
	off := l.head
	if omitted := l.total - l.head - int64(l.ringLen); omitted > 0 {
		m := fmt.Sprintf("\n[perflab: %d bytes of output omitted]\n", omitted)
		_, _ = l.f.WriteAt([]byte(m), off)
		off += int64(len(m))
	}
	_, _ = l.f.WriteAt(l.ringBytes(nil), off)
	_ = l.f.Truncate(off + int64(l.ringLen))
}

// latest returns up to tailBytes of the most recent output: the ring's
// end, preceded by the head's end when nothing was left out between them.
func (l *logSink) latest() []byte {
	var b []byte
	if l.ringLen < tailBytes && l.total == l.head+int64(l.ringLen) {
		b = append(b, l.headEnd...)
	}
	b = l.ringBytes(b)
	return b[max(0, len(b)-tailBytes):]
}

// tail returns the last n lines (n < 0: up to tailLines), the unfinished
// last line included, without the lines hide leaves out.
func (l *logSink) tail(n int) []string {
	l.mu.Lock()
	b := l.latest()
	cut := int64(len(b)) < l.total
	hide := l.hide
	l.mu.Unlock()
	if n < 0 || n > tailLines {
		n = tailLines
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'})
	if cut && len(lines) > 0 {
		lines = lines[1:] // the first line is cut by the window
	}
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		s := string(bytes.TrimSuffix(lines[i], []byte{'\r'}))
		if len(s) > maxLine {
			s = s[:maxLine]
		}
		if (s == "" && len(out) == 0) || hide != nil && hide(s) {
			continue
		}
		out = append(out, s)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// written is how many bytes the service has written so far.
func (l *logSink) written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// close writes what the ring holds and closes the file.
func (l *logSink) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	l.flush()
	err := l.f.Close()
	l.f = nil
	return err
}
