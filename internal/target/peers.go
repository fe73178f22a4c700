package target

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Peers returns the remote addresses of the processes' outbound TCP
// connections (established sockets whose local port is not one they
// listen on: not the connections clients made to them), with how many
// connections each has. It reads /proc/PID/fd and /proc/PID/net/tcp{,6}.
func Peers(pids []int) (map[string]int, error) {
	owned := map[uint64]bool{}
	for _, pid := range pids {
		for _, ino := range socketInodes(pid) {
			owned[ino] = true
		}
	}
	if len(owned) == 0 || len(pids) == 0 {
		return nil, nil
	}
	var socks []tcpSocket
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pids[0]), "net", name))
		if err != nil {
			continue
		}
		s, err := parseProcNetTCP(f, maxNetTCPBytes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading /proc/%d/net/%s: %w", pids[0], name, err)
		}
		socks = append(socks, s...)
	}
	listening := map[uint16]bool{}
	for _, s := range socks {
		if owned[s.inode] && s.state == tcpListen {
			listening[s.local.Port()] = true
		}
	}
	out := map[string]int{}
	for _, s := range socks {
		if owned[s.inode] && s.state == tcpEstablished && !listening[s.local.Port()] {
			out[s.remote.String()]++
		}
	}
	return out, nil
}

// socketInodes lists the socket inodes among pid's open files.
func socketInodes(pid int) []uint64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64); err == nil {
			out = append(out, ino)
		}
	}
	return out
}

// tcpEstablished is the state of a connected socket in /proc/net/tcp{,6}
// (include/net/tcp_states.h; tcpListen is beside ListenerOwner).
const tcpEstablished = 0x01

// maxNetTCPBytes bounds a read of /proc/net/tcp{,6}: about 50,000 sockets
// of ~150 bytes. The kernel lists the listening sockets first.
const maxNetTCPBytes = 8 << 20

type tcpSocket struct {
	local, remote netip.AddrPort
	state         int
	inode         uint64
}

// parseProcNetTCP reads /proc/net/tcp or tcp6, at most max bytes; lines it
// cannot read are skipped.
func parseProcNetTCP(r io.Reader, max int64) ([]tcpSocket, error) {
	sc := bufio.NewScanner(io.LimitReader(r, max))
	var out []tcpSocket
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		local, err1 := parseHexAddr([]byte(f[1]))
		remote, err2 := parseHexAddr([]byte(f[2]))
		state, err3 := strconv.ParseUint(f[3], 16, 8)
		inode, err4 := strconv.ParseUint(f[9], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, tcpSocket{local: unmap(local), remote: unmap(remote), state: int(state), inode: inode})
	}
	return out, sc.Err()
}

// unmap turns an IPv4-mapped IPv6 address (a dual-stack socket's) into IPv4.
func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
