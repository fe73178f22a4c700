package labtest

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestRefusedAddr: a connection to the address is refused, and no other
// socket can listen there while the test holds it.
func TestRefusedAddr(t *testing.T) {
	addr := RefusedAddr(t)
	if c, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Errorf("dial %s: %v; want the connection refused", addr, err)
	}
	if ln, err := net.Listen("tcp", addr); !errors.Is(err, syscall.EADDRINUSE) {
		if ln != nil {
			ln.Close()
		}
		t.Errorf("listen on %s: %v; want the address in use", addr, err)
	}
}
