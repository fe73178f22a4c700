package target

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

// tailLines is how many lines of the service's output are kept in memory.
const tailLines = 200

// maxLine truncates very long lines kept in memory.
const maxLine = 4096

// logSink receives the service's stdout and stderr. The file keeps the first
// half of the limit as written; after that, the most recent half is kept in
// a ring and written after the head (with a marker counting what was left
// out) at most once a second and on close, so the file stays bounded and
// still ends with the service's last words.
type logSink struct {
	mu      sync.Mutex
	f       *os.File
	headMax int64
	head    int64
	ring    []byte
	ringPos int
	ringLen int
	total   int64
	dirty   bool
	flushed time.Time

	lines   [tailLines]string
	nLines  int
	partial []byte

	// onLine receives each complete line, called by Write after the lock
	// is released; fresh holds the lines of the current Write for it.
	onLine func(string)
	fresh  []string
}

func newLogSink(path string, limit int64) (*logSink, error) {
	if limit <= 0 {
		limit = DefaultLogLimit
	}
	l := &logSink{headMax: limit / 2}
	if path != "" {
		l.ring = make([]byte, limit-limit/2)
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
	n, err := l.write(p)
	fresh := l.fresh
	l.fresh = nil
	l.mu.Unlock()
	for _, line := range fresh {
		l.onLine(line)
	}
	return n, err
}

func (l *logSink) write(p []byte) (int, error) {
	l.total += int64(len(p))
	l.addLines(p)
	if l.f == nil {
		return len(p), nil
	}
	rest := p
	if l.head < l.headMax {
		n := min(int64(len(rest)), l.headMax-l.head)
		_, _ = l.f.WriteAt(rest[:n], l.head)
		l.head += n
		rest = rest[n:]
	}
	if len(rest) > 0 {
		l.toRing(rest)
		l.dirty = true
		if time.Since(l.flushed) > time.Second {
			l.flush()
		}
	}
	return len(p), nil
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
	start := (l.ringPos - l.ringLen + len(l.ring)) % len(l.ring)
	if start+l.ringLen <= len(l.ring) {
		_, _ = l.f.WriteAt(l.ring[start:start+l.ringLen], off)
	} else {
		n, _ := l.f.WriteAt(l.ring[start:], off)
		_, _ = l.f.WriteAt(l.ring[:l.ringPos], off+int64(n))
	}
	_ = l.f.Truncate(off + int64(l.ringLen))
}

func (l *logSink) addLines(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(l.partial) < maxLine {
				l.partial = append(l.partial, p[:min(len(p), maxLine-len(l.partial))]...)
			}
			return
		}
		if len(l.partial) < maxLine {
			l.partial = append(l.partial, p[:min(i, maxLine-len(l.partial))]...)
		}
		l.pushLine()
		p = p[i+1:]
	}
}

func (l *logSink) pushLine() {
	s := string(l.partial)
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	l.lines[l.nLines%tailLines] = s
	l.nLines++
	if l.onLine != nil {
		l.fresh = append(l.fresh, s)
	}
	l.partial = l.partial[:0]
}

// tail returns the last n lines, the unfinished last line included.
func (l *logSink) tail(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	have := min(l.nLines, tailLines)
	var out []string
	for i := l.nLines - have; i < l.nLines; i++ {
		out = append(out, l.lines[i%tailLines])
	}
	if len(l.partial) > 0 {
		out = append(out, string(l.partial))
	}
	if n >= 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out
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
