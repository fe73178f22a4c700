package load

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// onAccept is a response a hostile server writes as soon as it accepts a
// connection, before any request could have reached it.
const onAccept = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// TestResponseOnAcceptIsBadResponse: a server that writes a response as
// soon as it accepts a connection answers nothing that was asked. When its
// bytes are there before the request is written (a race on loopback that
// 64 new connections at a time make it win often), or when they put its
// answers out of step (it then serves each request too), they are counted
// as bad-response, not as 200s.
func TestResponseOnAcceptIsBadResponse(t *testing.T) {
	servers := []struct {
		name      string
		serve     func(c net.Conn)
		mostlyBad bool // every connection's answers are out of step
	}{
		{"then closes", func(c net.Conn) {
			io.WriteString(c, onAccept)
			c.Close()
		}, false},
		{"then reads and closes", func(c net.Conn) {
			io.WriteString(c, onAccept)
			readHeadBlock(bufio.NewReader(c))
			c.Close()
		}, false},
		{"then serves", func(c net.Conn) {
			io.WriteString(c, onAccept)
			r := bufio.NewReader(c)
			for readHeadBlock(r) == nil {
				if _, err := io.WriteString(c, onAccept); err != nil {
					return
				}
			}
		}, true},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			forEachEngine(t, func(t *testing.T, engine string) {
				u := hostileServer(t, s.serve)
				r := attack(t, Config{Targets: target(t, u), Concurrency: 64, Duration: time.Second, Timeout: 5 * time.Second, engine: engine})
				bad := r.ErrorKinds[KindBadResponse]
				t.Logf("requests %d, status %v, errors %v", r.Requests, r.Status, r.ErrorKinds)
				if bad == 0 || (s.mostlyBad && 2*bad < r.Requests) {
					t.Errorf("requests %d, status %v, errors %v; want bad-response errors (most of them when the answers are out of step)", r.Requests, r.Status, r.ErrorKinds)
				}
			})
		})
	}
}

// TestOpenModelEndsWithinTimeoutOfTheSchedule: against a server that
// never answers, arrivals wait for one of the 2 slots and each then gets
// its --timeout; the load still ends --timeout after the schedule, not a
// wave of timeouts per slot later, what is left counted unfinished.
func TestOpenModelEndsWithinTimeoutOfTheSchedule(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		u := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			readHeadBlock(r)
			io.Copy(io.Discard, r)
		})
		const d, timeout = time.Second, 3 * time.Second
		start := time.Now()
		r := attack(t, Config{Targets: target(t, u), Rate: 20, Duration: d, MaxInflight: 2, Timeout: timeout, engine: engine})
		took := time.Since(start)
		if took > d+timeout+time.Second {
			t.Errorf("the load took %s; want at most -d %s + --timeout %s (and a second to spare)", took.Round(time.Millisecond), d, timeout)
		}
		if r.Status["200"] != 0 || r.Requests+r.Unfinished != r.Open.Scheduled {
			t.Errorf("requests %d (errors %v) + unfinished %d; want all %d arrivals counted, none answered", r.Requests, r.ErrorKinds, r.Unfinished, r.Open.Scheduled)
		}
	})
}

// TestClosedModelDrain: with Drain, the requests in flight when -d ends
// complete and count (none is cut off, none starts meanwhile); a server
// that never answers is cut off once the drain is over.
func TestClosedModelDrain(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		slow := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			for readHeadBlock(r) == nil {
				time.Sleep(300 * time.Millisecond) // planted: each answer takes 300 ms
				if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
					return
				}
			}
		})
		r := attack(t, Config{Targets: target(t, slow), Concurrency: 4, Duration: 500 * time.Millisecond, Drain: 10 * time.Second, Timeout: 20 * time.Second, engine: engine})
		if r.Unfinished != 0 || r.Errors != 0 || r.Requests < 4 || r.Requests%4 != 0 {
			t.Errorf("slow server, drained: requests %d (errors %v), unfinished %d; want each worker's requests completed, none cut off", r.Requests, r.ErrorKinds, r.Unfinished)
		}
		silent := hostileServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			readHeadBlock(r)
			io.Copy(io.Discard, r)
		})
		start := time.Now()
		r = attack(t, Config{Targets: target(t, silent), Concurrency: 4, Duration: 300 * time.Millisecond, Drain: 300 * time.Millisecond, Timeout: 20 * time.Second, engine: engine})
		if took := time.Since(start); r.Unfinished != 4 || took > 10*time.Second {
			t.Errorf("silent server: unfinished %d after %s; want the 4 cut off when the drain ends", r.Unfinished, took.Round(time.Millisecond))
		}
	})
}
