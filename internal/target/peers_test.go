package target

import (
	"net"
	"os"
	"strings"
	"testing"
)

const procNetTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:A2B4 0100007F:22B8 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1
   3: garbage line
`

func TestParseProcNetTCP(t *testing.T) {
	socks, err := parseProcNetTCP(strings.NewReader(procNetTCP), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 3 {
		t.Fatalf("got %d sockets; want 3: %+v", len(socks), socks)
	}
	if s := socks[2]; s.local.String() != "127.0.0.1:41652" || s.remote.String() != "127.0.0.1:8888" || s.state != tcpEstablished || s.inode != 1003 {
		t.Errorf("socket 2 = %+v", s)
	}
	v6, err := parseProcNetTCP(strings.NewReader("header\n 0: 00000000000000000000000001000000:1F90 0000000000000000FFFF00000100007F:22B8 01 0:0 0:0 0 0 0 7 1\n"), 1<<10)
	if err != nil || len(v6) != 1 || v6[0].local.String() != "[::1]:8080" || v6[0].remote.String() != "127.0.0.1:8888" {
		t.Errorf("IPv6 sockets = %+v, %v; want [::1]:8080 to 127.0.0.1:8888 (mapped)", v6, err)
	}
}

// TestPeersOfThisProcess opens a listener, a connection into it and a
// connection out of this process: only the outbound one is a peer.
func TestPeersOfThisProcess(t *testing.T) {
	in, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	out, err := net.Dial("tcp", other.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	peers, err := Peers([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	// This process also listens on other's port, so the connection
	// accepted there is inbound; the dialled one is outbound.
	if peers[other.Addr().String()] != 1 || len(peers) != 1 {
		t.Errorf("peers = %v; want only %s", peers, other.Addr())
	}
}

func FuzzParseProcNetTCP(f *testing.F) {
	f.Add([]byte(procNetTCP))
	f.Fuzz(func(t *testing.T, b []byte) {
		socks, _ := parseProcNetTCP(strings.NewReader(string(b)), 1<<16)
		for _, s := range socks {
			if !s.local.IsValid() || !s.remote.IsValid() {
				t.Errorf("invalid address in %+v", s)
			}
		}
	})
}
