package stacks

import "io"

// prefetchReader decompresses ahead in its own goroutine so that gzip
// inflation (single-threaded in compress/gzip) overlaps with decoding on a
// second core. Chunks are recycled, so memory stays at a few chunks.
// stop waits for the goroutine to stop reading: a caller may read the
// underlying file again (from the start) once Close returns.
type prefetchReader struct {
	full   chan []byte
	free   chan []byte
	done   chan struct{}
	exited chan struct{} // closed when fill has returned
	errc   chan error
	whole  []byte // the chunk being read
	cur    []byte // its unread part
	err    error
}

const prefetchChunk = 256 << 10

func newPrefetchReader(r io.Reader) *prefetchReader {
	p := &prefetchReader{full: make(chan []byte, 3), free: make(chan []byte, 4), done: make(chan struct{}), exited: make(chan struct{}), errc: make(chan error, 1)}
	for i := 0; i < 4; i++ {
		p.free <- make([]byte, prefetchChunk)
	}
	go p.fill(r)
	return p
}

func (p *prefetchReader) fill(r io.Reader) {
	defer close(p.exited)
	defer close(p.full)
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		}
		n, err := fillChunk(r, buf[:cap(buf)])
		if n > 0 {
			select {
			case p.full <- buf[:n]:
			case <-p.done:
				return
			}
		}
		if err != nil {
			p.errc <- err
			return
		}
	}
}

// fillChunk reads into buf until it is full or r fails, and returns r's own
// error: io.EOF at the clean end of the stream, anything else (gzip's
// io.ErrUnexpectedEOF for a stream cut before its trailer) as it is.
// (io.ReadFull would turn a short read's io.EOF into io.ErrUnexpectedEOF,
// and mapping that back to io.EOF would hide a truncated stream.)
func fillChunk(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Read implements io.Reader.
func (p *prefetchReader) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.whole != nil {
			p.free <- p.whole
			p.whole = nil
		}
		buf, ok := <-p.full
		if !ok {
			p.err = <-p.errc
			continue
		}
		p.whole, p.cur = buf, buf
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// stop stops the decompressing goroutine and waits until it no longer
// reads (it finishes the chunk under way, at most prefetchChunk bytes).
func (p *prefetchReader) stop() {
	close(p.done)
	<-p.exited
}
