package gobench

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
)

// maxOutputTail is how much of a command's output is kept for messages
// (its end, where a compiler or a panic puts what matters).
const maxOutputTail = 64 << 10

// tailBuffer keeps the last max bytes written to it; safe for the two
// streams of one process to write at once.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

// String is the tail, starting at a whole line when the head was cut.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.string()
}

func (t *tailBuffer) string() string {
	s := string(t.buf)
	if t.lost {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		return "[...]\n" + s
	}
	return s
}

// maxLine is the longest line handed to the benchmark parser; the rest of
// a longer line (a benchmark's own log output) is dropped, so one long
// line cannot stop the parsing of the results after it.
const maxLine = 16 << 10

// lineCap passes r through with every line cut to maxLine bytes.
type lineCap struct {
	r       *bufio.Reader
	pending []byte
	skip    bool
	err     error
}

func newLineCap(r io.Reader) *lineCap { return &lineCap{r: bufio.NewReaderSize(r, maxLine)} }

func (l *lineCap) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		line, err := l.r.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if !l.skip {
			l.pending = append(l.pending[:0], line...)
			if full {
				l.pending = append(l.pending, '\n')
			}
		}
		l.skip = full
		if err != nil && !full {
			l.err = err
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}
