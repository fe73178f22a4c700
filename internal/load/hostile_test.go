package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// hostileServer accepts connections on 127.0.0.1 and hands each to serve, a
// hostile server's behaviour written against the raw socket. It closes
// them when the test ends.
func hostileServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(done)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String() + "/"
}

// readHeadBlock reads a request's header block.
func readHeadBlock(r *bufio.Reader) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" {
			return nil
		}
	}
}

// TestRequestsInFlightAtTheEndAreCounted: a server that never answers, one
// that drips its body slower than -d, and one that never reads the request
// keep every request in flight until -d ends. They are counted as
// unfinished, with their age, instead of vanishing ("0 requests, 0 errors").
func TestRequestsInFlightAtTheEndAreCounted(t *testing.T) {
	servers := map[string]func(c net.Conn){
		"never answers": func(c net.Conn) {
			r := bufio.NewReader(c)
			readHeadBlock(r)
			io.Copy(io.Discard, r)
		},
		"drips its body": func(c net.Conn) {
			r := bufio.NewReader(c)
			if readHeadBlock(r) != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
			for range 1000 {
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond) // planted: a byte every 100 ms
			}
		},
		"never reads": func(c net.Conn) {
			<-t.Context().Done() // holds the connection, unread, until the test ends
		},
	}
	for name, serve := range servers {
		t.Run(name, func(t *testing.T) {
			forEachEngine(t, func(t *testing.T, engine string) {
				u := hostileServer(t, serve)
				tg := target(t, u)
				tg[0].Method, tg[0].Body = "POST", make([]byte, 8<<20) // more than the socket buffers hold
				r := attack(t, Config{Targets: tg, Concurrency: 3, Duration: time.Second, Timeout: time.Minute, engine: engine})
				if r.Requests != 0 || r.Unfinished != 3 {
					t.Errorf("requests %d (errors %d), unfinished %d; want 0 and the 3 in flight", r.Requests, r.Errors, r.Unfinished)
				}
				if r.UnfinishedOldestMs < 900 || r.UnfinishedOldestMs > 30_000 {
					t.Errorf("oldest unfinished %.0f ms; want about the 1 s the load lasted", r.UnfinishedOldestMs)
				}
			})
		})
	}
}

// TestOpenModelCountsWhatCtrlCCutsOff: arrivals in flight or waiting for a
// connection when the load is interrupted are unfinished, not lost.
func TestOpenModelCountsWhatCtrlCCutsOff(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		u := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			readHeadBlock(r)
			io.Copy(io.Discard, r)
		})
		a, err := New(Config{Targets: target(t, u), Rate: 100, Duration: 10 * time.Second, MaxInflight: 5, Timeout: time.Minute, engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r := a.Run(ctx)
		if r.Requests != 0 || r.Unfinished < 50 || r.Unfinished > r.Open.Scheduled {
			t.Errorf("requests %d, unfinished %d of %d scheduled; want 0 and about 100 (5 in flight, the rest waiting)", r.Requests, r.Unfinished, r.Open.Scheduled)
		}
	})
}

// TestResponseBeforeTheRequestIsNoSuccess: a server that answers 200 as
// soon as it has the header, without reading the body, has not served the
// request: no 200 is counted, only errors.
func TestResponseBeforeTheRequestIsNoSuccess(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		u := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			for readHeadBlock(r) == nil {
				if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
					return
				}
				<-t.Context().Done() // never reads the body: holds the connection until the test ends
			}
		})
		tg := target(t, u)
		tg[0].Method, tg[0].Body = "POST", make([]byte, 8<<20)
		r := attack(t, Config{Targets: tg, Concurrency: 2, Duration: 1500 * time.Millisecond, Timeout: 500 * time.Millisecond, engine: engine})
		if r.Status["200"] != 0 || r.Errors == 0 || r.Errors != r.Requests {
			t.Errorf("status %v, requests %d, errors %v; want no 200 and only errors", r.Status, r.Requests, r.ErrorKinds)
		}
	})
}

// TestUnsolicitedBytesAreNotTheNextAnswer: a server that sends two
// responses per request; the second must not be taken as the answer to the
// next request on the connection.
func TestUnsolicitedBytesAreNotTheNextAnswer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		var served sync.Map
		u := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			for n := 0; readHeadBlock(r) == nil; n++ {
				served.Store(c, n+1)
				if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nextra"); err != nil {
					return
				}
			}
		})
		r := attack(t, Config{Targets: target(t, u), Concurrency: 1, Requests: 20, Timeout: 5 * time.Second, engine: engine})
		if r.Status["201"] != 0 {
			t.Errorf("status %v: the unsolicited 201 was counted as an answer", r.Status)
		}
		if r.Requests != 20 || r.ErrorKinds[KindBadResponse] != 20 {
			t.Errorf("status %v, errors %v; want 20 requests, each a bad-response (its answer came with bytes nobody asked for)", r.Status, r.ErrorKinds)
		}
	})
}

// TestGarbageAndHTTP09AreBadResponses: a server that answers with bytes
// that are not HTTP/1.x (garbage, or an HTTP/0.9 reply: the body alone)
// and closes gave a bad response, not one cut short ("closed"), whether
// it closes the connection or keeps it open.
func TestGarbageAndHTTP09AreBadResponses(t *testing.T) {
	replies := map[string]string{
		"garbage":  "\x00\x17garbage\xff\r\n",
		"HTTP/0.9": "<html>hello</html>\n",
		"HTTP/2":   "HTTP/2 200\r\n\r\n",
		"one byte": "x",
	}
	for name, reply := range replies {
		for _, keepOpen := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, open %v", name, keepOpen), func(t *testing.T) {
				forEachEngine(t, func(t *testing.T, engine string) {
					u := hostileServer(t, func(c net.Conn) {
						if readHeadBlock(bufio.NewReader(c)) != nil {
							return
						}
						io.WriteString(c, reply)
						if !keepOpen {
							c.Close()
						}
					})
					r := attack(t, Config{Targets: target(t, u), Concurrency: 2, Requests: 10, Timeout: 5 * time.Second, engine: engine})
					if r.Requests != 10 || r.ErrorKinds[KindBadResponse] != 10 {
						t.Errorf("requests %d, errors %v; want 10, each a bad-response", r.Requests, r.ErrorKinds)
					}
				})
			})
		}
	}
}
