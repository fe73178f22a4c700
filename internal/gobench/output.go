package gobench

import (
	"bufio"
	"errors"
	"io"
)

// maxOutputTail is how much of a command's output is kept for messages
// (its end, where a compiler or a panic puts what matters).
const maxOutputTail = 64 << 10

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
