package load

import (
	"bytes"
	"fmt"
)

// Parser states.
const (
	stHead = iota
	stBody
	stChunkSize
	stChunkData
	stChunkEnd
	stTrailer
	stUntilEOF
	stDone
)

// maxLine bounds a chunk-size or trailer line.
const maxLine = 4096

// respParser consumes one HTTP/1.x response from a byte stream fed in pieces
// of any size, discarding the body as it goes. Both engines use it: the
// goroutine engine after each blocking read, the event loop after each
// readiness event.
type respParser struct {
	state  int
	head   respHead
	isHead bool  // the request was HEAD: no body
	left   int64 // body or chunk bytes still to come
	body   int64 // body bytes seen
}

func (p *respParser) reset(isHead bool) {
	*p = respParser{isHead: isHead}
}

// feed consumes what it can of b and reports how much it consumed and
// whether the response is complete. It consumes nothing while it waits for
// the rest of a header block or line; the caller then reads more and feeds
// the unconsumed bytes again.
func (p *respParser) feed(b []byte) (n int, done bool, err error) {
	for n < len(b) && p.state != stDone {
		k, err := p.step(b[n:])
		if err != nil {
			return n, false, err
		}
		if k == 0 {
			break // need more bytes
		}
		n += k
	}
	return n, p.state == stDone, nil
}

func (p *respParser) step(b []byte) (int, error) {
	switch p.state {
	case stHead:
		if err := checkStatusPrefix(b); err != nil {
			return 0, err
		}
		i := bytes.Index(b, crlfcrlf)
		if i < 0 {
			if len(b) >= maxHeader {
				return 0, errHeaderTooLarge
			}
			return 0, nil
		}
		if err := parseHead(b[:i+4], &p.head); err != nil {
			return 0, err
		}
		p.afterHead()
		return i + 4, nil
	case stBody, stChunkData:
		k := int64(len(b))
		if k > p.left {
			k = p.left
		}
		p.left -= k
		p.body += k
		if p.left == 0 {
			if p.state == stBody {
				p.state = stDone
			} else {
				p.state = stChunkEnd
			}
		}
		return int(k), nil
	case stUntilEOF:
		p.body += int64(len(b))
		return len(b), nil
	}
	return p.line(b)
}

// statusPrefix is how every HTTP/1.x response begins.
const statusPrefix = "HTTP/1."

// checkStatusPrefix refuses a response whose first bytes cannot begin a
// status line, as soon as they arrive: a server that sends garbage or an
// HTTP/0.9 body and closes gave a bad response, not a response cut short
// ("closed").
func checkStatusPrefix(b []byte) error {
	n := min(len(b), len(statusPrefix))
	if string(b[:n]) != statusPrefix[:n] {
		line, _ := cutLine(b)
		return fmt.Errorf("%w: not HTTP/1.x: %q", errBadResponse, clip(line))
	}
	return nil
}

func (p *respParser) afterHead() {
	h := &p.head
	switch {
	case h.status < 200 && h.status != 101:
		p.state = stHead // an interim response: the real one follows
	case p.isHead || h.bodyLen == 0:
		p.state = stDone
	case h.chunked:
		p.state = stChunkSize
	case h.bodyLen > 0:
		p.state, p.left = stBody, h.bodyLen
	default:
		p.state = stUntilEOF
		h.closeAfter = true
	}
}

// line handles the line-oriented states of a chunked body.
func (p *respParser) line(b []byte) (int, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		if len(b) >= maxLine {
			return 0, fmt.Errorf("%w: chunk line longer than %d bytes", errBadResponse, maxLine)
		}
		return 0, nil
	}
	l := b[:i]
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	switch p.state {
	case stChunkSize:
		size, ok := parseHex(l)
		if !ok {
			return 0, fmt.Errorf("%w: chunk size %q", errBadResponse, clip(l))
		}
		if size == 0 {
			p.state = stTrailer
		} else {
			p.state, p.left = stChunkData, size
		}
	case stChunkEnd:
		if len(l) != 0 {
			return 0, fmt.Errorf("%w: no CRLF after a chunk", errBadResponse)
		}
		p.state = stChunkSize
	case stTrailer:
		if len(l) == 0 {
			p.state = stDone
		}
	}
	return i + 1, nil
}

// eof tells the parser the stream ended; it reports whether that completes
// the response (a body delimited by the connection's close).
func (p *respParser) eof() bool {
	if p.state == stUntilEOF {
		p.state = stDone
		return true
	}
	return p.state == stDone
}

// keep reports whether the connection may carry another request.
func (p *respParser) keep() bool { return p.state == stDone && !p.head.closeAfter }
