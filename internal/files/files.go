// Package files is how perflab touches the user's files: it reads only
// regular files, and never more than a stated size, so a FIFO named like a
// profile cannot hang it and a huge file cannot exhaust its memory; and it
// writes every output through a temporary file beside the target, renamed
// into place once complete, so a failed write (a full disk, a read-only
// directory) leaves the old file as it was and never removes a path perflab
// did not create. What a command it runs prints is kept the same way,
// bounded: its last bytes (Tail).
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is a path that names something other than a regular file
// (a directory, a FIFO, a device) where a file is expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is a file larger than the reader accepts.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading if it is a regular file of at most max bytes
// (max <= 0: any size). It never blocks: a FIFO is opened non-blocking and
// refused.
func Open(path string, max int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	if max > 0 && st.Size() > max {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s, more than the %s perflab reads", ErrTooLarge, size(st.Size()), size(max))}
	}
	// Reads of a regular file never return EAGAIN; clear O_NONBLOCK anyway
	// so the descriptor behaves as os.Open's.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file path, at most max bytes (see Open).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return ReadAll(f, max, size, path)
}

// LimitReader reads r and fails with ErrTooLarge, naming what, after max
// bytes (max <= 0: no limit): a file that grows while it is read, or a
// stream that decompresses to more than perflab accepts.
func LimitReader(r io.Reader, max int64, what string) io.Reader {
	if max <= 0 {
		return r
	}
	return &limitReader{r: r, left: max, max: max, what: what}
}

type limitReader struct {
	r         io.Reader
	left, max int64
	what      string
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One more byte tells a stream of exactly max bytes from a longer one.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%s: %w: more than the %s perflab reads", l.what, ErrTooLarge, size(l.max))
		}
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a file"
}

// size words a byte count for an error message.
func size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", b)
}
