package load

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"testing"
)

// parseAll feeds stream in pieces of the given sizes (cycled) and returns
// status, body bytes, bytes consumed and whether the response completed.
func parseAll(stream []byte, sizes []int, isHead bool) (status int, body int64, used int, done bool, err error) {
	var p respParser
	p.reset(isHead)
	var pending []byte
	i := 0
	for pos := 0; pos < len(stream) && !done; i++ {
		k := sizes[i%len(sizes)]
		end := min(pos+k, len(stream))
		pending = append(pending, stream[pos:end]...)
		pos = end
		var n int
		n, done, err = p.feed(pending)
		if err != nil {
			return 0, 0, 0, false, err
		}
		used += n
		pending = pending[n:]
	}
	if !done && p.eof() {
		done = true
	}
	return p.head.status, p.body, used, done, nil
}

func TestParserSplitsGiveTheSameResult(t *testing.T) {
	streams := []struct {
		in     string
		status int
		body   int64
		head   bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, 5, false},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 201, 2, false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a;x=y\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: 1\r\n\r\n", 200, 31, false},
		{"HTTP/1.0 200 OK\r\n\r\nuntil the end", 200, 13, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", 200, 0, true},
		{"HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", 304, 0, false},
	}
	rng := rand.New(rand.NewSource(1))
	for _, s := range streams {
		for trial := 0; trial < 50; trial++ {
			sizes := []int{len(s.in)}
			if trial > 0 {
				sizes = []int{1 + rng.Intn(7), 1 + rng.Intn(30), 1}
			}
			status, body, _, done, err := parseAll([]byte(s.in), sizes, s.head)
			if err != nil || !done || status != s.status || body != s.body {
				t.Fatalf("%q in pieces %v: status %d body %d done %v err %v; want %d %d", s.in, sizes, status, body, done, err, s.status, s.body)
			}
		}
	}
}

func TestParserErrors(t *testing.T) {
	for _, in := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n",
		"NOT HTTP\r\n\r\n",
	} {
		if _, _, _, _, err := parseAll([]byte(in), []int{3}, false); !errors.Is(err, errBadResponse) {
			t.Errorf("%q: err %v; want bad response", in, err)
		}
	}
}

// A stream that cannot begin a status line is a bad response from its
// first bytes, before the connection ends, in whatever pieces it comes;
// one that begins like HTTP/1.x waits for the rest.
func TestParserRefusesWhatIsNotHTTP1(t *testing.T) {
	for _, in := range []string{"garbage\n", "<html>hello</html>", "HTTP/2 200\r\n", "\r\nHTTP/1.1 200 OK\r\n", "http/1.1 200 OK", "x"} {
		for _, size := range []int{1, 3, len(in)} {
			var p respParser
			p.reset(false)
			var err error
			for pos := 0; pos < len(in) && err == nil; pos += size {
				_, _, err = p.feed([]byte(in[:min(pos+size, len(in))]))
			}
			if !errors.Is(err, errBadResponse) || !strings.Contains(err.Error(), "not HTTP/1.x") {
				t.Errorf("%q in pieces of %d: %v; want a bad response (not HTTP/1.x)", in, size, err)
			}
		}
	}
	for _, in := range []string{"H", "HTTP/1.", "HTTP/1.1 200 OK\r\nContent-Le"} {
		var p respParser
		p.reset(false)
		if n, done, err := p.feed([]byte(in)); n != 0 || done || err != nil {
			t.Errorf("%q: consumed %d, done %v, %v; want it to wait for more", in, n, done, err)
		}
	}
}

func FuzzParseResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), uint8(3))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), uint8(1))
	f.Add([]byte("HTTP/1.0 200 OK\r\n\r\nabc"), uint8(2))
	f.Fuzz(func(t *testing.T, stream []byte, split uint8) {
		s1, b1, u1, d1, e1 := parseAll(stream, []int{len(stream) + 1}, false)
		s2, b2, u2, d2, e2 := parseAll(stream, []int{int(split%16) + 1}, false)
		if (e1 == nil) != (e2 == nil) || s1 != s2 || b1 != b2 || d1 != d2 || (d1 && u1 != u2) {
			t.Fatalf("whole: %d %d %d %v %v; split %d: %d %d %d %v %v", s1, b1, u1, d1, e1, split, s2, b2, u2, d2, e2)
		}
		if b1 < 0 || int64(u1) > int64(len(stream)) {
			t.Fatalf("body %d, used %d of %d", b1, u1, len(stream))
		}
	})
}

func TestBigHeaderGrowsTheBufferThenFails(t *testing.T) {
	for _, tc := range []struct {
		header int
		ok     bool
	}{{8 << 10, true}, {20 << 10, false}} {
		u := rawServer(t, func(c net.Conn) {
			br := bufio.NewReader(c)
			for readRequest(br) == nil {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Big: %s\r\nContent-Length: 2\r\n\r\nok", strings.Repeat("b", tc.header))
			}
		})
		forEachEngine(t, func(t *testing.T, engine string) {
			r := attack(t, Config{engine: engine, Targets: target(t, u), Concurrency: 1, Requests: 3})
			if got := r.Errors == 0; got != tc.ok || (!tc.ok && r.ErrorKinds[KindBadResponse] != 3) {
				t.Errorf("%d-byte header: errors %v; want ok=%v (bad-response past %d bytes)", tc.header, r.ErrorKinds, tc.ok, maxHeader)
			}
		})
	}
}
