package load

import (
	"errors"
	"fmt"
)

// errBadResponse marks a response that is not valid HTTP/1.x.
var errBadResponse = errors.New("bad response")

// respHead is what the worker needs from a response header. The parser is
// hand-written rather than net/http's because net/http allocates a header map
// and strings per response; a load generator only needs three headers, and its
// per-request CPU is taken from the service it measures.
type respHead struct {
	status     int
	bodyLen    int64 // -1: unknown (chunked or until close)
	chunked    bool
	closeAfter bool // the server will close the connection after this response
	http10     bool
}

// parseHead parses a complete header block b (ending with \r\n\r\n).
func parseHead(b []byte, h *respHead) error {
	*h = respHead{bodyLen: -1}
	line, rest := cutLine(b)
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' {
		return fmt.Errorf("%w: status line %q", errBadResponse, clip(line))
	}
	switch line[7] {
	case '1':
	case '0':
		h.http10, h.closeAfter = true, true
	default:
		return fmt.Errorf("%w: status line %q", errBadResponse, clip(line))
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return fmt.Errorf("%w: status line %q", errBadResponse, clip(line))
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 || (len(line) > 12 && line[12] != ' ') {
		return fmt.Errorf("%w: status line %q", errBadResponse, clip(line))
	}
	h.status = code
	for len(rest) > 0 {
		line, rest = cutLine(rest)
		if len(line) == 0 {
			break
		}
		if err := h.header(line); err != nil {
			return err
		}
	}
	if code < 200 || code == 204 || code == 304 {
		h.bodyLen, h.chunked = 0, false
	}
	return nil
}

func (h *respHead) header(line []byte) error {
	colon := -1
	for i, c := range line {
		if c == ':' {
			colon = i
			break
		}
	}
	if colon <= 0 {
		return fmt.Errorf("%w: header line %q", errBadResponse, clip(line))
	}
	name, value := line[:colon], trimSpace(line[colon+1:])
	switch {
	case equalFold(name, "content-length"):
		if h.chunked {
			return nil // Transfer-Encoding wins (RFC 9112 6.3)
		}
		n, ok := parseDecimal(value)
		if !ok || (h.bodyLen >= 0 && h.bodyLen != n) {
			return fmt.Errorf("%w: Content-Length %q", errBadResponse, clip(value))
		}
		h.bodyLen = n
	case equalFold(name, "transfer-encoding"):
		if hasTokenFold(value, "chunked") {
			h.chunked, h.bodyLen = true, -1
		}
	case equalFold(name, "connection"):
		if hasTokenFold(value, "close") {
			h.closeAfter = true
		} else if h.http10 && hasTokenFold(value, "keep-alive") {
			h.closeAfter = false
		}
	}
	return nil
}

// cutLine splits b at the first \n, dropping a \r before it.
func cutLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		if c == '\n' {
			line = b[:i]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			return line, b[i+1:]
		}
	}
	return b, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares an ASCII header name with a lower-case literal.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasTokenFold reports whether a comma-separated header value has token.
func hasTokenFold(v []byte, token string) bool {
	for len(v) > 0 {
		end := len(v)
		for i, c := range v {
			if c == ',' {
				end = i
				break
			}
		}
		if equalFold(trimSpace(v[:end]), token) {
			return true
		}
		if end == len(v) {
			break
		}
		v = v[end+1:]
	}
	return false
}

// parseDecimal parses a non-negative decimal that fits in 62 bits.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseHex parses a chunk size line ("1a2b" or "1a2b;ext=1").
func parseHex(b []byte) (int64, bool) {
	for i, c := range b {
		if c == ';' {
			b = b[:i]
			break
		}
	}
	b = trimSpace(b)
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			n = n<<4 | int64(c-'0')
		case 'a' <= c && c <= 'f':
			n = n<<4 | int64(c-'a'+10)
		case 'A' <= c && c <= 'F':
			n = n<<4 | int64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}
