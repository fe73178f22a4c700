package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// maxHeader bounds a response header block.
const maxHeader = 64 << 10

// errHeaderTooLarge is a response whose header does not fit maxHeader.
var errHeaderTooLarge = fmt.Errorf("%w: header larger than %d bytes", errBadResponse, maxHeader)

var crlfcrlf = []byte("\r\n\r\n")

// h1conn is one HTTP/1.1 connection: a socket and its read buffer.
type h1conn struct {
	conn   net.Conn
	buf    []byte
	r, w   int  // unread bytes are buf[r:w]
	reused bool // at least one response was read on it
	dl     time.Time
}

// setDeadline bounds the next round trip by d. Moving a socket deadline costs
// a runtime timer update, so it is moved only when the current one is more
// than 1% of the timeout early: a request may time out up to 1% sooner than
// --timeout, never later.
func (c *h1conn) setDeadline(d time.Time, timeout time.Duration) {
	if c.dl.IsZero() || d.Sub(c.dl) > timeout/100 {
		c.conn.SetDeadline(d)
		c.dl = d
	}
}

// dialer opens connections for one target host.
type dialer struct {
	addr      string
	tlsConfig *tls.Config // nil for plain http
	timeout   time.Duration
}

func (d *dialer) dial(ctx context.Context) (*h1conn, error) {
	nd := net.Dialer{Timeout: d.timeout, KeepAlive: -1}
	c, err := nd.DialContext(ctx, "tcp", d.addr)
	if err != nil {
		return nil, err
	}
	if d.tlsConfig != nil {
		tc := tls.Client(c, d.tlsConfig)
		tc.SetDeadline(time.Now().Add(d.timeout))
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, err
		}
		c = tc
	}
	return &h1conn{conn: c, buf: make([]byte, 16<<10)}, nil
}

func (c *h1conn) close() {
	if c != nil && c.conn != nil {
		c.conn.Close()
	}
}

// fill reads more bytes into the buffer, compacting it first if needed.
func (c *h1conn) fill() (int, error) {
	if c.r > 0 && c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.buf) {
		if c.r == 0 {
			return 0, errHeaderTooLarge
		}
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	n, err := c.conn.Read(c.buf[c.w:])
	c.w += n
	if n > 0 {
		return n, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return 0, err
}

// exchange is the outcome of one request on a connection.
type exchange struct {
	status    int
	bodyBytes int64
	firstByte time.Time // when the first byte of the response arrived
	gotBytes  bool      // some response bytes arrived (a failure is then not retryable)
	keep      bool      // the connection may carry another request
}

// roundTrip writes req and reads one response, discarding its body as it
// streams (a multi-gigabyte body is counted, never buffered).
func (c *h1conn) roundTrip(req []byte, head bool, x *exchange) error {
	*x = exchange{}
	if _, err := c.conn.Write(req); err != nil {
		return err
	}
	var h respHead
	for {
		if err := c.readHead(&h, x); err != nil {
			return err
		}
		if h.status >= 200 || h.status == 101 {
			break
		}
		// 1xx interim response: its header was consumed; read the next one.
	}
	x.status = h.status
	if head {
		h.bodyLen, h.chunked = 0, false
	}
	var err error
	switch {
	case h.chunked:
		err = c.discardChunked(x)
	case h.bodyLen >= 0:
		err = c.discardN(h.bodyLen, x)
	default:
		err = c.discardUntilEOF(x)
		h.closeAfter = true
	}
	x.keep = err == nil && !h.closeAfter
	return err
}

func (c *h1conn) readHead(h *respHead, x *exchange) error {
	scanned := c.r
	for {
		if i := bytes.Index(c.buf[scanned:c.w], crlfcrlf); i >= 0 {
			end := scanned + i + 4
			err := parseHead(c.buf[c.r:end], h)
			c.r = end
			return err
		}
		if c.w-3 > scanned {
			scanned = c.w - 3
		}
		r0 := c.r
		n, err := c.fill()
		scanned -= r0 - c.r // fill may have moved the unread bytes to the front
		if n > 0 && !x.gotBytes {
			x.gotBytes = true
			x.firstByte = time.Now()
		}
		if err != nil {
			if errors.Is(err, io.EOF) && x.gotBytes {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
}

// discardN consumes n body bytes.
func (c *h1conn) discardN(n int64, x *exchange) error {
	for n > 0 {
		if c.r == c.w {
			if _, err := c.fill(); err != nil {
				if errors.Is(err, io.EOF) {
					return io.ErrUnexpectedEOF
				}
				return err
			}
		}
		k := int64(c.w - c.r)
		if k > n {
			k = n
		}
		c.r += int(k)
		n -= k
		x.bodyBytes += k
	}
	return nil
}

func (c *h1conn) discardUntilEOF(x *exchange) error {
	x.bodyBytes += int64(c.w - c.r)
	c.r = c.w
	for {
		c.r, c.w = 0, 0
		n, err := c.fill()
		x.bodyBytes += int64(n)
		c.r = c.w
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// line returns the next \r\n-terminated line from the stream.
func (c *h1conn) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(c.buf[c.r:c.w], '\n'); i >= 0 {
			l := c.buf[c.r : c.r+i]
			c.r += i + 1
			if len(l) > 0 && l[len(l)-1] == '\r' {
				l = l[:len(l)-1]
			}
			return l, nil
		}
		if _, err := c.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// discardChunked consumes a chunked body and its trailers.
func (c *h1conn) discardChunked(x *exchange) error {
	for {
		l, err := c.line()
		if err != nil {
			return err
		}
		size, ok := parseHex(l)
		if !ok {
			return fmt.Errorf("%w: chunk size %q", errBadResponse, clip(l))
		}
		if size == 0 {
			break
		}
		if err := c.discardN(size, x); err != nil {
			return err
		}
		if l, err := c.line(); err != nil {
			return err
		} else if len(l) != 0 {
			return fmt.Errorf("%w: no CRLF after a chunk", errBadResponse)
		}
	}
	for { // trailers, up to the empty line
		l, err := c.line()
		if err != nil {
			return err
		}
		if len(l) == 0 {
			return nil
		}
	}
}
