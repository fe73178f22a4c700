package service

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"
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
	other := newAcceptor(t)
	defer other.dial(t).Close()
	peers, err := NewPeerReader().Peers([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	// This process also listens on other's port, so the connection
	// accepted there is inbound; the dialled one is outbound.
	if peers[other.Addr().String()] != 1 || len(peers) != 1 {
		t.Errorf("peers = %v; want only %s", peers, other.Addr())
	}
	// Two processes holding the same socket (a worker's inherited
	// descriptor) hold one connection.
	if twice, err := NewPeerReader().Peers([]int{os.Getpid(), os.Getpid()}); err != nil || twice[other.Addr().String()] != 1 {
		t.Errorf("peers of the same process twice = %v, %v; want one connection to %s", twice, err, other.Addr())
	}
}

// acceptor is a listener of this process that accepts every connection
// and keeps it open until the test ends.
type acceptor struct {
	net.Listener
	accepted chan struct{}
}

func newAcceptor(t *testing.T) *acceptor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &acceptor{Listener: ln, accepted: make(chan struct{}, 16)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			a.accepted <- struct{}{}
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return a
}

// dial connects and waits for the accepted end, so both sockets are in
// this process's descriptors before a reader looks.
func (a *acceptor) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", a.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	<-a.accepted
	return c
}

// TestPeerReaderRereadsOnlyForNewSockets: the socket tables are read again
// only for a socket the reader has not seen, at most once per peerRetry, or
// when the refresh is due.
func TestPeerReaderRereadsOnlyForNewSockets(t *testing.T) {
	ln := newAcceptor(t)
	dial := func() net.Conn { return ln.dial(t) }
	now := time.Unix(1000, 0)
	r := NewPeerReader()
	r.now = func() time.Time { return now }
	pids := []int{os.Getpid()}
	peers := func() map[string]int {
		t.Helper()
		p, err := r.Peers(pids)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	c1 := dial()
	defer c1.Close()
	peers()
	now = now.Add(500 * time.Millisecond)
	if peers(); r.reads != 1 {
		t.Errorf("%d table reads with no new socket; want 1", r.reads)
	}
	c2 := dial()
	defer c2.Close()
	now = now.Add(300 * time.Millisecond)
	if p := peers(); r.reads != 1 || p[ln.Addr().String()] != 1 {
		t.Errorf("%d reads, peers %v %v after the last read; want 1 read, the known connection alone", r.reads, p, 800*time.Millisecond)
	}
	now = now.Add(peerRetry - 800*time.Millisecond)
	if p := peers(); r.reads != 2 || p[ln.Addr().String()] != 2 {
		t.Errorf("%d reads, peers %v after a new socket; want 2 reads, both connections", r.reads, p)
	}
	now = now.Add(peerRefresh)
	if peers(); r.reads != 3 {
		t.Errorf("%d reads after %v; want the refresh's 3rd", r.reads, peerRefresh)
	}
}

// BenchmarkPeers reads this process's peers: every table read (a new
// reader each time) against the remembered sockets.
func BenchmarkPeers(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pids := []int{os.Getpid()}
	b.Run("read", func(b *testing.B) {
		for range b.N {
			if _, err := NewPeerReader().Peers(pids); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remembered", func(b *testing.B) {
		r := NewPeerReader()
		for range b.N {
			if _, err := r.Peers(pids); err != nil {
				b.Fatal(err)
			}
		}
	})
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
