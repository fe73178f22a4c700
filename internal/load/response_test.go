package load

import (
	"errors"
	"testing"
)

func TestParseHead(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want respHead
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", respHead{status: 200, bodyLen: 12}},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n", respHead{status: 200, bodyLen: -1, chunked: true}},
		{"HTTP/1.1 204 No Content\r\n\r\n", respHead{status: 204}},
		{"HTTP/1.0 200 OK\r\n\r\n", respHead{status: 200, bodyLen: -1, closeAfter: true, http10: true}},
		{"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", respHead{status: 200, http10: true}},
		{"HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 3\r\n\r\n", respHead{status: 503, bodyLen: 3, closeAfter: true}},
		{"HTTP/1.1 200\r\nContent-Length: 1\r\n\r\n", respHead{status: 200, bodyLen: 1}},
	} {
		var h respHead
		if err := parseHead([]byte(tc.in), &h); err != nil || h != tc.want {
			t.Errorf("parseHead(%q) = %+v, %v; want %+v", tc.in, h, err, tc.want)
		}
	}
	for _, bad := range []string{
		"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc\r\n\r\n", "SSH-2.0-x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
	} {
		var h respHead
		if err := parseHead([]byte(bad), &h); !errors.Is(err, errBadResponse) {
			t.Errorf("parseHead(%q) = %v; want a bad-response error", bad, err)
		}
	}
}

func FuzzParseHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 404 Not Found\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h respHead
		if err := parseHead(b, &h); err == nil {
			if h.status < 100 || h.status > 999 || h.bodyLen < -1 || (h.chunked && h.bodyLen != -1) {
				t.Fatalf("parseHead(%q) = %+v", b, h)
			}
		}
	})
}

func FuzzParseHex(f *testing.F) {
	f.Add([]byte("1a2B;ext=1"))
	f.Add([]byte("0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, ok := parseHex(b); ok && n < 0 {
			t.Fatalf("parseHex(%q) = %d", b, n)
		}
	})
}
