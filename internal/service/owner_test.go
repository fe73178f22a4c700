package service

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestListenersServe reads listeners from /proc/net/tcp{,6} text and checks
// which addresses each accepts connections to.
func TestListenersServe(t *testing.T) {
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 00000000:17AC 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 100 0 0 10 0
`
	ls, err := parseProcNetTCP(strings.NewReader(tcp), 1<<20)
	if err != nil || len(ls) != 2 || ls[0].state != tcpListen {
		t.Fatalf("parseProcNetTCP = %+v, %v; want 2 listeners", ls, err)
	}
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:17AC 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 78 1 0000000000000000 100 0 0 10 0
`
	ls6, err := parseProcNetTCP(strings.NewReader(tcp6), 1<<20)
	if err != nil || len(ls6) != 2 {
		t.Fatalf("parseProcNetTCP(tcp6) = %+v, %v", ls6, err)
	}
	if ls6[0].local != netip.MustParseAddrPort("[::]:8080") || ls6[1].local != netip.MustParseAddrPort("127.0.0.1:6060") {
		t.Errorf("tcp6 addresses = %v, %v; want [::]:8080 and 127.0.0.1:6060 (unmapped)", ls6[0].local, ls6[1].local)
	}
	for _, tc := range []struct {
		l    tcpSocket
		a    string
		want bool
	}{
		{ls[0], "127.0.0.1:8080", true},
		{ls[0], "127.0.0.1:8081", false},
		{ls[0], "10.0.0.1:8080", false},
		{ls[1], "127.0.0.1:6060", true},
		{ls[1], "[::1]:6060", false}, // 0.0.0.0 takes IPv4 only
		{ls6[0], "127.0.0.1:8080", true},
		{ls6[0], "[::1]:8080", true},
		{ls6[1], "127.0.0.1:6060", true},
		{ls6[1], "[::ffff:127.0.0.1]:6060", true},
		{ls6[1], "[::1]:6060", false},
	} {
		if got := tc.l.serves(netip.MustParseAddrPort(tc.a)); got != tc.want {
			t.Errorf("%v serves %s = %v; want %v", tc.l.local, tc.a, got, tc.want)
		}
	}
}

// TestListenerOwner finds the process behind a listening socket: this test
// process for its own listener, a child for the child's, and nothing for a
// port where nobody listens.
func TestListenerOwner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx := context.Background()
	pid, found, err := ListenerOwner(ctx, ln.Addr().String(), nil)
	if err != nil || !found || pid != os.Getpid() {
		t.Errorf("owner of our own listener = %d, %v, %v; want %d", pid, found, err, os.Getpid())
	}
	ln6, err := net.Listen("tcp", "[::]:0")
	if err == nil {
		defer ln6.Close()
		port := ln6.Addr().(*net.TCPAddr).Port
		for _, a := range []string{"127.0.0.1", "localhost"} {
			pid, found, err = ListenerOwner(ctx, net.JoinHostPort(a, itoa(port)), []int{1})
			if err != nil || !found || pid != os.Getpid() {
				t.Errorf("owner of %s:%d (a [::] listener) = %d, %v, %v", a, port, pid, found, err)
			}
		}
	}

	addr := labtest.FreeAddr(t)
	cmd, env := helperCmd(t, "serve", addr)
	child := exec.Command(cmd[0], cmd[1:]...)
	child.Env = append(os.Environ(), env...)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	labtest.Eventually(t, 10*time.Second, "the helper to listen", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	pid, found, err = ListenerOwner(ctx, addr, []int{os.Getpid()})
	if err != nil || !found || pid != child.Process.Pid {
		t.Errorf("owner of the child's listener = %d, %v, %v; want %d", pid, found, err, child.Process.Pid)
	}
	if name := ProcessName(pid); !strings.Contains(name, itoa(child.Process.Pid)) {
		t.Errorf("ProcessName = %q", name)
	}
	ln.Close()
	if pid, found, err := ListenerOwner(ctx, ln.Addr().String(), nil); found || err != nil {
		t.Errorf("a closed port has owner %d, %v, %v", pid, found, err)
	}
	if _, found, _ := ListenerOwner(ctx, "192.0.2.1:80", nil); found {
		t.Error("a remote address has a local owner")
	}
}
