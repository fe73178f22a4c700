package files

import (
	"strings"
	"sync"
)

// Tail keeps the last bytes a command writes, at most a stated number: its
// end, where a compiler's error or a panic stands, bounded however much it
// prints. Both streams of one process may write to it at once.
type Tail struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

// NewTail keeps the last max bytes written to it.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write keeps the end of p and of what came before, max bytes in all; it
// never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

// String is what was kept; when the head was cut, it starts at a whole
// line after a "[...]" line.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.lost {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		return "[...]\n" + s
	}
	return s
}
