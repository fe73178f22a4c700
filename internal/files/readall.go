package files

import "io"

// maxChunk is the largest piece ReadAll reads into at a time.
const maxChunk = 8 << 20

// ReadAll reads r to its end, at most limit bytes (ErrTooLarge beyond,
// naming what; limit <= 0: no limit). io.ReadAll doubles its buffer as it
// grows, so a stream cut at 256 MiB held 512 MiB and the copy: ReadAll
// reads into pieces of at most 8 MiB instead and joins them once at the
// end, so a stream refused as too large costs limit (and a piece), and one
// read whole at most twice its size while it is joined. hint, when it is
// from 1 to limit, is the expected size (a Content-Length, a file's size):
// a stream of that size is read into one buffer, with no copy.
func ReadAll(r io.Reader, limit, hint int64, what string) ([]byte, error) {
	r = LimitReader(r, limit, what)
	next := int64(64 << 10)
	if hint > 0 && (limit <= 0 || hint <= limit) {
		next = hint + 1 // one more byte finds the end without another piece
	}
	var pieces [][]byte
	total := 0
	for {
		buf := make([]byte, next)
		n, err := fill(r, buf)
		if n > 0 {
			pieces = append(pieces, buf[:n])
			total += n
		}
		switch {
		case err == io.EOF:
			return join(pieces, total), nil
		case err != nil:
			return nil, err
		}
		next = min(max(int64(total)/2, 64<<10), maxChunk)
	}
}

// fill reads into buf until it is full (nil error), the stream ends
// (io.EOF) or fails. Unlike io.ReadFull it passes a reader's own
// io.ErrUnexpectedEOF (a truncated gzip stream) on as it is.
func fill(r io.Reader, buf []byte) (int, error) {
	n, empty := 0, 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m > 0 {
			empty = 0
		} else if empty++; empty == 100 { // as bufio gives up on a reader that returns nothing
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

// join returns the pieces as one slice (the piece itself when there is one).
func join(pieces [][]byte, total int) []byte {
	switch len(pieces) {
	case 0:
		return []byte{}
	case 1:
		return pieces[0]
	}
	b := make([]byte, 0, total)
	for i, p := range pieces {
		b = append(b, p...)
		pieces[i] = nil // let the piece go while the rest is copied
	}
	return b
}
