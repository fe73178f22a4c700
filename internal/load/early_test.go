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
