package service

import (
	"net"
	"os"
	"testing"
)

func TestSocketPeers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peers, err := SocketPeers(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ino := range socketInodes(os.Getpid()) {
		switch peers[ino] {
		case ln.Addr().String():
			found = true
		case "":
		default:
			if peers[ino] != c.LocalAddr().String() { // the accepted end, not accepted yet or accepted
				t.Errorf("socket %d: peer %q", ino, peers[ino])
			}
		}
	}
	if !found {
		t.Errorf("no socket of this process has the peer %s: %v", ln.Addr(), peers)
	}
}
