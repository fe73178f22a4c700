package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// maxHeader bounds a response header block. A connection's read buffer
// starts at readBuf and grows to maxHeader only for a header that needs it,
// so a thousand open-model connections hold 4 MiB, not 16.
const (
	maxHeader = 16 << 10
	readBuf   = 4 << 10
)

// errEarlyResponse is a response that arrived before the request was
// written; errUnsolicited, bytes on a connection before a request was
// sent on it (a response on accept); errExtraBytes, bytes after a
// response (a server answering ahead of requests, or twice). None answers
// the request.
var (
	errEarlyResponse = fmt.Errorf("%w: the response came before the whole request was sent (the server did not read it)", errBadResponse)
	errUnsolicited   = fmt.Errorf("%w: the server sent data before the request", errBadResponse)
	errExtraBytes    = fmt.Errorf("%w: bytes nobody asked for followed the response (the server answers out of step)", errBadResponse)
)

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
	parser respParser
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
	return &h1conn{conn: c, buf: make([]byte, readBuf)}, nil
}

// waiting says whether a plain TCP connection has bytes to read before
// anything was asked on it (over TLS the server's session tickets come
// unasked, so those are not checked).
func (c *h1conn) waiting() bool {
	tc, ok := c.conn.(*net.TCPConn)
	if !ok {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	})
	return n > 0
}

func (c *h1conn) close() {
	if c != nil && c.conn != nil {
		c.conn.Close()
	}
}

// fill reads more bytes into the buffer, compacting it first if needed.
func (c *h1conn) fill() (int, error) {
	if c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.buf) {
		c.buf, c.r, c.w = makeRoom(c.buf, c.r, c.w)
		if c.w == len(c.buf) {
			return 0, errHeaderTooLarge
		}
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

// makeRoom frees space at the end of a full read buffer: it moves the unread
// bytes buf[r:w] to the front, or, when they fill it, grows it up to
// maxHeader. The caller reports a header too large when nothing changed.
func makeRoom(buf []byte, r, w int) ([]byte, int, int) {
	if r > 0 {
		return buf, 0, copy(buf, buf[r:w])
	}
	if len(buf) < maxHeader {
		bigger := make([]byte, min(2*len(buf), maxHeader))
		return bigger, 0, copy(bigger, buf[:w])
	}
	return buf, r, w
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
	if !c.reused && c.waiting() {
		return errUnsolicited // a response on accept answers nothing
	}
	if _, err := c.conn.Write(req); err != nil {
		return err
	}
	p := &c.parser
	p.reset(head)
	for {
		if c.r < c.w {
			n, done, err := p.feed(c.buf[c.r:c.w])
			c.r += n
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
		n, err := c.fill()
		if n > 0 && !x.gotBytes {
			x.gotBytes, x.firstByte = true, time.Now()
		}
		if errors.Is(err, io.EOF) {
			if p.eof() {
				break
			}
			if x.gotBytes {
				return io.ErrUnexpectedEOF
			}
		}
		if err != nil {
			return err
		}
	}
	if c.r < c.w {
		return errExtraBytes
	}
	x.status, x.bodyBytes, x.keep = p.head.status, p.body, p.keep()
	if p.head.closeAfter {
		x.keep = false
	}
	return nil
}
