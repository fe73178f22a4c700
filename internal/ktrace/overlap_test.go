package ktrace

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

func init() { helpers["bigreply"] = bigReplyHelper }

// bigReply is the answer of bigReplyHelper: larger than the socket
// buffers, so its write blocks until the client has read most of it.
const bigReply = 8 << 20

// bigReplyHelper answers each line of a connection with bigReply bytes in
// one write.
func bigReplyHelper() error {
	answer := make([]byte, bigReply)
	return serveLines(func(*net.TCPConn) error { return nil }, func(c *net.TCPConn) error {
		_, err := c.Write(answer)
		return err
	})
}

// TestRequestSentDuringTheAnswerIsCounted: a client that sends its next
// request as soon as the answer starts to arrive (while the service is
// still inside the write of it) has every request counted and its wait
// to be read measured: the request arrived while the connection looked
// busy, and starts when the answer's write ends.
func TestRequestSentDuringTheAnswerIsCounted(t *testing.T) {
	svc, line := startHelper(t, "bigreply")
	port := helperPort(t, line)
	s := startSession(t, Config{PIDs: []int{svc.cmd.Process.Pid}, Ports: []uint16{port}})
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	const requests = 6
	buf := make([]byte, 64<<10)
	if _, err := io.WriteString(c, "r\n"); err != nil {
		t.Fatal(err)
	}
	for i := range requests {
		if _, err := io.ReadFull(c, buf[:1]); err != nil { // the answer has begun
			t.Fatal(err)
		}
		if i+1 < requests {
			if _, err := io.WriteString(c, "r\n"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := io.CopyN(io.Discard, c, bigReply-1); err != nil {
			t.Fatal(err)
		}
	}
	in := read(t, s).Inbound[port]
	if in.Requests != requests || in.Unread.Count != requests {
		t.Errorf("%d requests, %d read; want %d: a request sent during the answer's write was lost", in.Requests, in.Unread.Count, requests)
	}
}
