package ktrace

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

func init() { helpers["twopart"] = twoPartHelper }

// twoPartHelper answers each request line in two parts, "a" at once and
// "b" 50 ms later: a client that shuts its side after the first part has
// sent its FIN before the service's last send (on a machine too busy for
// that, the FIN comes after it, and the test checks less, never wrongly).
func twoPartHelper() error {
	return serveLines(func(*net.TCPConn) error { return nil }, func(c *net.TCPConn) error {
		if _, err := io.WriteString(c, "a\n"); err != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond) // planted: the second part comes late
		_, err := io.WriteString(c, "b\n")
		return err
	})
}

// A client that shuts its sending side once its request is read (HTTP/1.0
// clients, nc -N, many RPC clients) sends a FIN that waits, unread, while
// the service answers: a FIN is no request.
func TestHalfClosedClientSendsOneRequest(t *testing.T) {
	svc, line := startHelper(t, "twopart")
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}})
	const clients = 10
	for range clients {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		_, _ = io.WriteString(c, "r\n")
		first, err := r.ReadString('\n')
		if err == nil {
			err = c.(*net.TCPConn).CloseWrite()
		}
		rest, rerr := io.ReadAll(r)
		c.Close()
		if err != nil || rerr != nil || first+string(rest) != "a\nb\n" {
			t.Fatalf("answer %q %q: %v %v", first, rest, err, rerr)
		}
	}
	in := read(t, s).Inbound[port]
	if in.Requests != clients || in.Unread.Count != clients {
		t.Errorf("%d requests, %d read, from %d clients sending one each", in.Requests, in.Unread.Count, clients)
	}
}
