package load

import (
	"bytes"
	"fmt"
	"net/http"
)

// MaxHeaderFileBytes bounds a file that gives headers (-H 'Name: @file',
// --header-file). It is four times net/http's default limit on a
// request's header block (1 MiB), so a service's own limit can be probed,
// and small enough to keep in memory and send with every request.
const MaxHeaderFileBytes = 4 << 20

// HeaderValue turns a file's content into one header's value: the bytes
// of the file exactly, less one line ending at its end ("\n" or "\r\n"),
// which editors add. A value that still holds a line break or a NUL is
// not one header and is refused, with the byte where it is.
func HeaderValue(b []byte) (string, error) {
	if rest, ok := bytes.CutSuffix(b, []byte("\n")); ok {
		b = bytes.TrimSuffix(rest, []byte("\r"))
	}
	if i := bytes.IndexAny(b, "\r\n\x00"); i >= 0 {
		return "", fmt.Errorf("byte %d is %s: a header's value is one line", i+1, charName(b[i]))
	}
	return string(b), nil
}

// ParseHeaderLines parses a header file: one "Name: value" a line, as -H
// takes them. Blank lines and lines starting with # are skipped; a value
// is the rest of its line, spaces around it dropped. Content-Length and
// Transfer-Encoding are refused: perflab sets them from the body.
func ParseHeaderLines(b []byte) (http.Header, error) {
	h := http.Header{}
	for n := 1; len(b) > 0; n++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		s := string(bytes.TrimSpace(line))
		if s == "" || s[0] == '#' {
			continue
		}
		name, value, err := ParseHeader(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if k := http.CanonicalHeaderKey(name); k == "Content-Length" || k == "Transfer-Encoding" {
			return nil, fmt.Errorf("line %d: %s is set by perflab from the body (--body, --body-file)", n, k)
		}
		h.Add(name, value)
	}
	return h, nil
}

// charName names a byte that may not be in a header's value.
func charName(c byte) string {
	switch c {
	case '\r':
		return "a carriage return"
	case '\n':
		return "a line break"
	}
	return "NUL"
}
